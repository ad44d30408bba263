import { Activity, DocumentFamily, Execution, Task, TaskGroupHistoryEntry, WebhookDelivery, WebhookEndpoint } from '../entities';
import { AnalyticsEmbedToken } from '../model/analytics-embed-token';
import { AgentServiceBridgeCall, AgentServiceBridgeList } from '../model/agent-bridge-tools';
import { BATCH_UPDATE_LIMIT, BatchUpdateResult } from '../model/batch-update';
import { ChannelTranscript, TRANSCRIPT_MESSAGES, transcriptText } from './channel-transcript';
import type { DomainOperation } from '../model/operation';
import { TemplateApplication } from '../model/template-application';

/**
 * OpenAPI operationIds of the operations whose operationId (also their GraphQL field) an OpenAPI
 * collection operation already has: `listServiceBridges` is GET /api/service-bridges there. The agent
 * tools keep their GraphQL names; any other operation's OpenAPI operationId is its operationId.
 */
export const openApiOperationIds: Readonly<Record<string, string>> = {
  listServiceBridges: 'listAgentSessionServiceBridges',
  callServiceBridge: 'callAgentSessionServiceBridge',
};

/**
 * Every domain operation served beside the collections (docs/operations.md); its behaviour
 * is the handler a domain module (modules/) registers under its operationId.
 */
export const operations: DomainOperation[] = [
  {
    operationId: 'lockTask',
    method: 'put',
    path: 'tasks/{id}/lock',
    tag: 'tasks',
    summary: 'Lock a task: locked=true, lockedAt, lockedById; 409 when it is already locked',
    body: [],
    bodyOptional: true,
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'unlockTask',
    method: 'put',
    path: 'tasks/{id}/unlock',
    tag: 'tasks',
    summary: 'Unlock a task; its activity reads "Task unlocked: <reason>"; 409 when it is not locked',
    body: [{ name: 'reason', kind: 'string', description: 'Why; absent, null or blank is allowed' }],
    bodyOptional: true,
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'setTaskStatus',
    method: 'put',
    path: 'tasks/{id}/status',
    tag: 'tasks',
    summary: "Set a task's status: a live task status of the task's organization, by slug or by id",
    body: [
      { name: 'statusSlug', kind: 'string', description: 'The status by slug' },
      { name: 'statusId', kind: 'id', description: 'The status by id (when no statusSlug is given)' },
    ],
    answer: { entity: Task },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'listHistoryForTaskGroup',
    method: 'get',
    path: 'task-groups/{id}/history',
    tag: 'task-groups',
    summary: "A page of one task group's history, newest first; also for a deleted group",
    body: [],
    answer: { page: TaskGroupHistoryEntry },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'setDocumentStatus',
    method: 'put',
    path: 'document-families/{id}/status',
    tag: 'document-families',
    summary: "Set a document family's status: a DocumentStatus (only its id is read) of a project of the family's organization",
    body: [
      { name: 'id', kind: 'id', restOnly: true, description: "The DocumentStatus's id; a whole DocumentStatus object may be sent, only id is read" },
      { name: 'documentStatusId', kind: 'id', description: 'The DocumentStatus by id (the GraphQL argument; REST bodies may use it instead of id)' },
    ],
    answer: { entity: DocumentFamily },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'clearDocumentStatus',
    method: 'delete',
    path: 'document-families/{id}/status',
    tag: 'document-families',
    summary: "Clear a document family's status (documentStatus null afterwards)",
    body: [],
    bodyOptional: true,
    answer: { entity: DocumentFamily },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'lockDocumentFamily',
    method: 'put',
    path: 'document-families/{id}/lock',
    tag: 'document-families',
    summary: 'Lock a document family: locked=true, lockedAt, lockedById, and a document_locked event; 409 when it is already locked',
    body: [],
    bodyOptional: true,
    answer: { entity: DocumentFamily },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'unlockDocumentFamily',
    method: 'put',
    path: 'document-families/{id}/unlock',
    tag: 'document-families',
    summary: 'Unlock a document family; 409 when it is not locked',
    body: [],
    bodyOptional: true,
    answer: { entity: DocumentFamily },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'cancelExecution',
    method: 'put',
    path: 'executions/{executionId}/cancel',
    rowParam: 'executionId',
    tag: 'executions',
    summary: 'Cancel a PENDING or RUNNING execution (CANCELLED, endDate set) and its unfinished step executions; 409 when it is already final',
    body: [],
    bodyOptional: true,
    answer: { entity: Execution },
    status: 200,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'batchUpdate',
    method: 'post',
    path: 'batch-update',
    tag: 'content-objects',
    summary:
      `Update up to ${BATCH_UPDATE_LIMIT} content objects, each operation in its own transaction by the rules of PUT /api/content-objects/{id}; ` +
      'one result per operation, in request order',
    body: [
      {
        name: 'operations',
        kind: 'jsonArray',
        required: true,
        description: `1 to ${BATCH_UPDATE_LIMIT} objects {id, changeSequence?, ...fields}: the id of a content object and the body its PUT would take`,
      },
    ],
    answer: { schema: 'BatchUpdateResult', graphql: () => BatchUpdateResult },
    status: 200,
    errors: ['400'],
  },
  {
    operationId: 'fireTrigger',
    method: 'post',
    path: 'triggers/{id}/fire',
    tag: 'triggers',
    summary:
      'Start the activity of an enabled manual trigger by hand, with `input` (the activity inputs unless the trigger maps them); ' +
      'the activity runs in the background. 409 when the trigger is disabled, is not a manual trigger, or its eventFilter is false or fails (an error or a limit) for this input',
    body: [{ name: 'input', kind: 'json', description: 'Handed to eventFilter and inputMapping as `input`' }],
    bodyOptional: true,
    answer: { entity: Activity },
    status: 202,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'failActivityStep',
    method: 'post',
    path: 'orchestrator/activities/{id}/steps/{stepId}/error',
    pathParams: ['stepId'],
    restOnly: true,
    anyObjectBody: true,
    tag: 'orchestrator',
    summary: 'Internal callback (platform administrators only): the step and its activity become FAILED with the body as errorDetails',
    body: [],
    answer: { entity: Activity },
    status: 202,
    errors: ['400', '404'],
  },
  {
    operationId: 'applyProjectTemplate',
    method: 'post',
    path: 'projects/{id}/apply-template',
    tag: 'projects',
    summary:
      "Apply a project template to an existing project in one transaction: its option values checked and defaults filled in the project's " +
      'options.dataProperties, then its task statuses, document statuses, activity plans and triggers created where none with the same slug exists',
    body: [
      {
        name: 'projectTemplateRef',
        kind: 'string',
        required: true,
        description: "The template: its id, its slug in the project's organization, or project-template://<orgSlug>/<slug>",
      },
    ],
    answer: { schema: 'TemplateApplication', graphql: () => TemplateApplication },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'mintAnalyticsEmbedToken',
    method: 'post',
    path: 'analytics/embed-token',
    tag: 'analytics',
    summary:
      "Exchange the caller's credential for a short-lived RS256 JWT (header kid) for the analytics service: claims iss, aud, sub (the user), iat, exp " +
      "(at most 15 minutes later), orgs (the slugs of the organizations of the caller's teams, all live ones for platform administrators; never taken from " +
      'the request), models, objects and rowFilters {<model>: {<rowFilterField>: [<orgs>]}}. 403 for a caller in no organization; 503 when the ' +
      'minter is disabled or its signing key missing or unusable',
    body: [{ name: 'models', kind: 'stringArray', description: 'A subset of the configured models (400 naming an unknown one); absent: all of them' }],
    bodyOptional: true,
    answer: { schema: 'AnalyticsEmbedToken', graphql: () => AnalyticsEmbedToken },
    status: 200,
    errors: ['400', '503'],
  },
  {
    operationId: 'listServiceBridges',
    method: 'get',
    path: 'agent-sessions/{id}/tools/list_service_bridges',
    tag: 'agent-sessions',
    summary: "Agent tool list_service_bridges: the agentCallable service bridges bound to the session's project; 403 for a session without a project",
    body: [],
    answer: { schema: 'AgentServiceBridgeList', graphql: () => AgentServiceBridgeList },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'callServiceBridge',
    method: 'post',
    path: 'agent-sessions/{id}/tools/call_service_bridge',
    tag: 'agent-sessions',
    summary:
      "Agent tool call_service_bridge: call an endpoint of one of the session's callable bridges (403 for any other) through the egress guard, " +
      "its secrets filled in server-side; answers the upstream's status and body (cut at 256 KB)",
    body: [
      { name: 'bridge', kind: 'string', required: true, description: 'The bridge: its id or slug' },
      { name: 'endpoint_name', kind: 'string', required: true, description: 'The endpoint, by name' },
      { name: 'query', kind: 'json', description: 'Query parameters: names to values (an array repeats the name)' },
      { name: 'body', kind: 'jsonValue', description: 'The JSON body (not sent with GET or HEAD); its presence makes POST the default method' },
    ],
    answer: { schema: 'AgentServiceBridgeCall', graphql: () => AgentServiceBridgeCall },
    status: 200,
    errors: ['400', '404', '502', '504'],
  },
  {
    operationId: 'getChannelTranscript',
    method: 'get',
    path: 'channels/{id}/transcript',
    tag: 'channels',
    summary:
      `The most recent ${TRANSCRIPT_MESSAGES} messages of a channel the caller may see (403 and 404 as GET /api/channels/{id}), oldest first; ` +
      'truncated when older ones exist. ?format=text answers text/plain, one "ROLE: content" line per message (a line break inside a message written as \\n)',
    body: [],
    answer: { schema: 'ChannelTranscript', graphql: () => ChannelTranscript },
    textFormat: (answer) => transcriptText(answer as ChannelTranscript),
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'rotateWebhookEndpointSecret',
    method: 'post',
    path: 'webhook-endpoints/{id}/rotate-secret',
    tag: 'webhook-endpoints',
    summary:
      'Replace the signing secret of a webhook endpoint (owners): the answer carries the new signingSecret, once; later attempts are signed with it alone',
    body: [],
    bodyOptional: true,
    answer: { entity: WebhookEndpoint },
    status: 200,
    errors: ['400', '404'],
  },
  {
    operationId: 'testWebhookEndpoint',
    method: 'post',
    path: 'webhook-endpoints/{id}/test',
    tag: 'webhook-endpoints',
    summary:
      'Send a webhook.test event to an enabled endpoint (owners), whatever its eventTypes; answers the delivery to follow in the log. 409 when the endpoint is disabled',
    body: [],
    bodyOptional: true,
    answer: { entity: WebhookDelivery },
    status: 202,
    errors: ['400', '404', '409'],
  },
  {
    operationId: 'redeliverWebhookDelivery',
    method: 'post',
    path: 'webhook-deliveries/{id}/redeliver',
    tag: 'webhook-deliveries',
    summary:
      'Deliver again (owners), under the same webhook-id: the delivery becomes PENDING and follows the retry schedule from its start. 409 when its endpoint is disabled',
    body: [],
    bodyOptional: true,
    answer: { entity: WebhookDelivery },
    status: 202,
    errors: ['400', '404', '409'],
  },
];
