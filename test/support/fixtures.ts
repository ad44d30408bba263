import { expect } from 'vitest';
import { unique, type TestServer } from './server';

/** Creates an organization through the API and returns its JSON. */
export async function createOrganization(server: TestServer, body: Record<string, unknown> = {}, key?: string) {
  const answer = await server.request('POST', '/api/organizations', { body: { name: unique('Org'), ...body }, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

export async function createProject(server: TestServer, organizationId: string, body: Record<string, unknown> = {}, key?: string) {
  const answer = await server.request('POST', '/api/projects', { body: { name: unique('Project'), organizationId, ...body }, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

export async function createTask(server: TestServer, projectId: string, body: Record<string, unknown> = {}, key?: string) {
  const answer = await server.request('POST', '/api/tasks', { body: { projectId, ...body }, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}
