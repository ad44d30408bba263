import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BOOTSTRAP_ADMIN_EMAIL } from '../auth/bootstrap';
import type { PlatformUser } from '../entities/platform-user';
import { logger } from '../logging/logger';
import { RequestContext, type Actor } from '../engine/context';
import { setDocumentStatus } from '../modules/documents/document-families';
import type { Services } from '../engine/services';
import { lockTask, setTaskStatus } from '../modules/tasks/tasks';

/**
 * The demo dataset (`npm run demo`, `npm start -- --demo`): one small organization written through the
 * services, as requests would write it, so that every rule applies (slugs, owners team, task
 * activities, platform events, the trigger that starts an activity).
 *
 * It loads only into an EMPTY database: one with no organization (archived ones included) and no user
 * but the bootstrap administrator admin@localhost. Anything else is refused without writing a row, so
 * a second run changes nothing.
 */
export const EMPTY_DATABASE_RULE = `no organization (archived ones included) and no user but the bootstrap administrator ${BOOTSTRAP_ADMIN_EMAIL}`;

export const DEMO_ORGANIZATION_NAME = 'Northwind Trading';
export const DEMO_USER_EMAIL = 'demo@northwind.example';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of many entities, read and written by field name
type Row = Record<string, any>;

export interface DemoSummary {
  organization: { id: string; name: string; slug: string };
  /** The user the demo writes as, owner of the organization; `apiKey` is theirs, shown once. */
  demoUser: { id: string; email: string };
  apiKey: string;
  users: string[];
  teams: string[];
  projects: { id: string; name: string; slug: string; tasks: number; template?: string }[];
  taskStatuses: string[];
  tasks: { total: number; locked: number; assigned: number };
  documentStore: { name: string; families: number; contentObjects: number };
  assistant: { name: string; project: string };
  activityPlan: { name: string; slug: string };
  trigger: { slug: string; eventKind: string; eventFilter: string; project: string };
  /** The project whose task_created events fire the trigger, and how many activities the demo's tasks start. */
  triggeredProjectId: string;
  expectedActivities: number;
}

export type DemoOutcome = { loaded: true; summary: DemoSummary } | { loaded: false; reason: string };

/** The people of the organization besides the demo user; each joins a team. */
const COLLEAGUES = [
  { key: 'sam', email: 'sam.okafor@northwind.example', firstName: 'Sam', lastName: 'Okafor', title: 'Contract analyst', businessGroup: 'Legal' },
  { key: 'priya', email: 'priya.nair@northwind.example', firstName: 'Priya', lastName: 'Nair', title: 'Accounts payable lead', businessGroup: 'Finance' },
  { key: 'leo', email: 'leo.martin@northwind.example', firstName: 'Leo', lastName: 'Martin', title: 'Intake coordinator', businessGroup: 'Operations' },
] as const;
type Person = (typeof COLLEAGUES)[number]['key'] | 'demo';

const TEAMS: { name: string; description: string; members: Person[] }[] = [
  { name: 'Contracts', description: 'Reviews supplier contracts and renewals', members: ['demo', 'sam'] },
  { name: 'Finance', description: 'Matches invoices to purchase orders and posts accruals', members: ['priya'] },
  { name: 'Intake', description: 'Receives documents and opens the tasks they need', members: ['leo'] },
];

/** Statuses by role; the slugs are derived from the labels by the service. */
const TASK_STATUSES = [
  { role: 'todo', label: 'To do', statusType: 'OPEN', color: '#64748b', sequence: 1 },
  { role: 'doing', label: 'In progress', statusType: 'IN_PROGRESS', color: '#2563eb', sequence: 2 },
  { role: 'blocked', label: 'Blocked', statusType: 'BLOCKED', color: '#dc2626', sequence: 3 },
  { role: 'done', label: 'Done', statusType: 'DONE', color: '#16a34a', sequence: 4 },
] as const;
type StatusRole = (typeof TASK_STATUSES)[number]['role'];

interface DemoTask {
  title: string;
  description: string;
  status: StatusRole;
  priority: number;
  assignee?: Person;
  locked?: boolean;
  /** Days from now (negative: in the past). */
  dueInDays?: number;
  completedDaysAgo?: number;
  properties?: Record<string, unknown>;
  /** The document family it works on, by its key in FAMILIES. */
  family?: string;
  comment?: string;
  subTasks?: DemoTask[];
}

/** Tasks whose properties.kind is this start the contract review (the trigger's filter). */
const CONTRACT_KIND = 'supplier-contract';

const PROJECTS: { key: string; name: string; description: string; color: string; owner: Person; tasks: DemoTask[] }[] = [
  {
    key: 'contracts',
    name: 'Supplier Contracts',
    description: 'New supplier agreements and renewals, from intake to signature',
    color: '#7c3aed',
    owner: 'demo',
    tasks: [
      {
        title: 'Intake: Harbour Shipping master services agreement',
        description: 'A new three-year agreement arrived from Harbour Shipping.',
        status: 'todo',
        priority: 3,
        dueInDays: 5,
        properties: { kind: CONTRACT_KIND, supplier: 'Harbour Shipping' },
        family: 'msa',
      },
      {
        title: 'Check the indemnity clause of the Baltic Freight renewal',
        description: 'Clause 14 caps liability at one month of fees; compare with our standard terms.',
        status: 'doing',
        priority: 4,
        assignee: 'sam',
        locked: true,
        dueInDays: 2,
        properties: { supplier: 'Baltic Freight' },
        family: 'renewal',
        comment: 'Legal asked for the 2022 version for comparison.',
      },
      {
        title: 'Collect the signed NDA from Orchard Packaging',
        description: 'Waiting for their signature before the first shipment.',
        status: 'blocked',
        priority: 2,
        assignee: 'leo',
        properties: { supplier: 'Orchard Packaging', waitingOn: 'supplier signature' },
        family: 'nda',
        comment: 'Reminder sent to Orchard Packaging on Monday.',
      },
      {
        title: 'Archive the 2023 framework agreement',
        description: 'Superseded by the 2025 agreement.',
        status: 'done',
        priority: 1,
        assignee: 'sam',
        completedDaysAgo: 3,
      },
    ],
  },
  {
    key: 'invoices',
    name: 'Invoice Processing',
    description: 'Supplier invoices matched to purchase orders and approved for payment',
    color: '#0891b2',
    owner: 'priya',
    tasks: [
      {
        title: 'Match invoice INV-10422 to its purchase order',
        description: 'Harbour Shipping, March freight; the amount differs from PO-7731 by 250.40 EUR.',
        status: 'doing',
        priority: 3,
        assignee: 'priya',
        locked: true,
        properties: { invoiceNumber: 'INV-10422', amount: 18250.4, currency: 'EUR', purchaseOrder: 'PO-7731' },
        family: 'invoice',
        subTasks: [
          {
            title: 'Confirm the VAT number of Harbour Shipping',
            description: 'The invoice shows a new VAT number.',
            status: 'todo',
            priority: 2,
            assignee: 'priya',
          },
        ],
      },
      {
        title: 'Query the duplicate invoice INV-10418',
        description: 'Same amount and date as INV-10417 from Baltic Freight.',
        status: 'blocked',
        priority: 4,
        assignee: 'priya',
        properties: { invoiceNumber: 'INV-10418', currency: 'EUR' },
      },
      {
        title: 'Approve the March freight invoices',
        description: 'Twelve invoices, all matched.',
        status: 'todo',
        priority: 2,
        dueInDays: 10,
      },
      {
        title: 'Post the February accruals',
        description: 'Accruals for goods received and not yet invoiced.',
        status: 'done',
        priority: 1,
        assignee: 'priya',
        completedDaysAgo: 10,
      },
    ],
  },
];

/** A third project is created from this template (its options are checked, its document statuses created). */
const ONBOARDING = {
  template: {
    name: 'Customer onboarding',
    description: 'A project per new customer: region option, document statuses for the documents they send',
    options: [
      {
        name: 'region',
        label: 'Region',
        description: 'Two-letter region code of the customer',
        required: true,
        properties: { pattern: '^[A-Z]{2}$', patternMessage: 'must be a two-letter region code such as EU' },
      },
    ],
    documentStatuses: [
      { slug: 'received', status: 'Received', color: '#f59e0b', statusType: 'UNRESOLVED' },
      { slug: 'verified', status: 'Verified', color: '#16a34a', statusType: 'RESOLVED' },
    ],
  },
  project: { name: 'Customer Onboarding', description: 'Lumen Retail, signed in March', color: '#ea580c', region: 'EU' },
  tasks: [
    {
      title: 'Verify the company registration of Lumen Retail',
      description: 'Check the registry extract against the signed order form.',
      status: 'todo',
      priority: 3,
      assignee: 'leo',
      dueInDays: 4,
    },
    {
      title: 'Set up Lumen Retail in the billing system',
      description: 'Payment terms 30 days, invoices in EUR.',
      status: 'doing',
      priority: 2,
      assignee: 'priya',
    },
  ] satisfies DemoTask[],
};

/** Document families of the store, with their content objects (index 0 the original, 1 a rendition). */
const FAMILIES: {
  key: string;
  path: string;
  summary: string;
  size: number;
  metadata: Record<string, unknown>;
  status?: string;
  mimeType: string;
  renditions: number;
}[] = [
  {
    key: 'msa',
    path: 'suppliers/harbour-shipping/master-services-agreement-2025.pdf',
    summary: 'Master services agreement with Harbour Shipping, three-year term from April 2025',
    size: 482_133,
    metadata: { supplier: 'Harbour Shipping', documentType: 'MSA', pages: 18 },
    status: 'received',
    mimeType: 'application/pdf',
    renditions: 2,
  },
  {
    key: 'renewal',
    path: 'suppliers/baltic-freight/renewal-2025.docx',
    summary: 'Renewal of the Baltic Freight haulage contract with revised liability terms',
    size: 96_412,
    metadata: { supplier: 'Baltic Freight', documentType: 'Renewal', pages: 6 },
    status: 'under-review',
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    renditions: 2,
  },
  {
    key: 'nda',
    path: 'suppliers/orchard-packaging/nda-unsigned.pdf',
    summary: 'Mutual NDA sent to Orchard Packaging, not yet signed',
    size: 61_870,
    metadata: { supplier: 'Orchard Packaging', documentType: 'NDA', pages: 3 },
    status: 'received',
    mimeType: 'application/pdf',
    renditions: 1,
  },
  {
    key: 'invoice',
    path: 'invoices/2025-03/INV-10422.pdf',
    summary: 'Harbour Shipping invoice INV-10422, March freight',
    size: 38_204,
    metadata: { supplier: 'Harbour Shipping', documentType: 'Invoice', invoiceNumber: 'INV-10422' },
    mimeType: 'application/pdf',
    renditions: 1,
  },
];

/** Statuses of the contracts project's documents, by slug (FAMILIES name them). */
const CONTRACT_DOCUMENT_STATUSES = [
  { status: 'Received', color: '#f59e0b', statusType: 'UNRESOLVED' },
  { status: 'Under review', color: '#2563eb', statusType: 'UNRESOLVED' },
  { status: 'Reviewed', color: '#16a34a', statusType: 'RESOLVED' },
];

const DAY_MS = 24 * 60 * 60 * 1000;

function daysFromNow(days: number): string {
  return new Date(Date.now() + days * DAY_MS).toISOString();
}

function create(ctx: RequestContext, path: string, body: Record<string, unknown>): Promise<Row> {
  return ctx.services.resource(path).create(ctx, body) as Promise<Row>;
}

async function count(ctx: RequestContext, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await ctx.em.getConnection().execute<{ n: string }[]>(sql, params, 'all', ctx.em.getTransactionContext());
  return Number(row.n);
}

/** What makes the database not empty (see EMPTY_DATABASE_RULE); undefined when it is empty. */
async function notEmpty(ctx: RequestContext): Promise<string | undefined> {
  const organizations = await count(ctx, 'select count(*) as n from organization');
  const users = await count(ctx, 'select count(*) as n from platform_user where email <> ?', [BOOTSTRAP_ADMIN_EMAIL]);
  if (organizations === 0 && users === 0) return undefined;
  const found = [
    organizations ? `${organizations} organization${organizations === 1 ? '' : 's'}` : '',
    users ? `${users} user${users === 1 ? '' : 's'} besides ${BOOTSTRAP_ADMIN_EMAIL}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return `the database already holds ${found}; the demo loads only into an empty database (${EMPTY_DATABASE_RULE}). Nothing was written.`;
}

/**
 * Loads the demo into an empty database in one transaction (all of it or nothing), then adds two task
 * comments (after the CREATED activities, which follow that commit) and locks two tasks, each in a
 * transaction of its own as for a request (a lock's data-lake record follows its commit). A database
 * that is not empty is refused without writing.
 */
export async function loadDemo(orm: MikroORM, services: Services): Promise<DemoOutcome> {
  const system = new RequestContext(orm.em.fork() as EntityManager, { kind: 'system' }, services);
  const written = await system.transaction(async (tx) => {
    // Two loaders at once take turns: the second finds the first one's organization.
    await tx.em.getConnection().execute('select pg_advisory_xact_lock(hashtext(?))', ['platform-demo-data'], 'all', tx.em.getTransactionContext());
    const reason = await notEmpty(tx);
    if (reason) return { reason };
    return writeDemo(tx);
  });
  if ('reason' in written) return { loaded: false, reason: written.reason };
  const asDemo = new RequestContext(orm.em.fork() as EntityManager, written.actor, services);
  for (const comment of written.comments) await create(asDemo, 'task-activities', comment);
  for (const id of written.toLock) await lockTask(asDemo, id);
  return { loaded: true, summary: written.summary };
}

interface Written {
  summary: DemoSummary;
  actor: Actor;
  toLock: string[];
  /** Task comments, added after the tasks' own CREATED activities (written once the load commits). */
  comments: Row[];
}

async function writeDemo(tx: RequestContext): Promise<Written> {
  // Users are platform-wide: the system creates them. The demo user then writes everything else.
  const demoUser = await create(tx, 'users', {
    email: DEMO_USER_EMAIL,
    firstName: 'Dana',
    lastName: 'Whitfield',
    title: 'Operations lead',
    businessGroup: 'Operations',
  });
  const people: Record<Person, Row> = { demo: demoUser } as Record<Person, Row>;
  for (const { key, ...body } of COLLEAGUES) people[key] = await create(tx, 'users', body);

  const userActor = { kind: 'user', user: demoUser as PlatformUser, isAdmin: false, credential: 'api-key' } as const;
  const token = await create(tx.actingAs(userActor), 'access-tokens', { name: 'demo' });
  const actor: Actor = { ...userActor, accessTokenId: token.id };
  const as = tx.actingAs(actor);

  // The organization's creator joins its owners team.
  const organization = await create(as, 'organizations', {
    name: DEMO_ORGANIZATION_NAME,
    description: 'Wholesale importer: supplier contracts, invoices and customer onboarding (demo data)',
    properties: { industry: 'Wholesale trade', headquarters: 'Rotterdam' },
  });
  const organizationId = organization.id as string;
  const teams = ['Owners'];
  for (const team of TEAMS) {
    const created = await create(as, 'teams', { organizationId, name: team.name, description: team.description });
    for (const person of team.members) await create(as, 'team-members', { teamId: created.id, userId: people[person].id });
    teams.push(team.name);
  }

  const statusSlug = {} as Record<StatusRole, string>;
  for (const { role, ...status } of TASK_STATUSES) statusSlug[role] = (await create(as, 'task-statuses', { organizationId, ...status })).slug;
  const active = await create(as, 'project-statuses', { organizationId, status: 'Active', color: '#16a34a', production: true });
  const pilot = await create(as, 'project-statuses', { organizationId, status: 'Pilot', color: '#f59e0b', production: false });

  const projects: Record<string, Row> = {};
  for (const project of PROJECTS) {
    projects[project.key] = await create(as, 'projects', {
      organizationId,
      name: project.name,
      description: project.description,
      color: project.color,
      ownerId: people[project.owner].id,
      statusId: active.id,
    });
  }
  const contracts = projects.contracts;

  // The contracts project's document statuses, then the store, its families and their content objects.
  const documentStatuses: Record<string, string> = {};
  for (const status of CONTRACT_DOCUMENT_STATUSES) {
    const created = await create(as, 'document-statuses', { projectId: contracts.id, ...status });
    documentStatuses[created.slug] = created.id;
  }
  const store = await create(as, 'document-stores', {
    organizationId,
    name: 'Contracts archive',
    description: 'Supplier contracts, renewals and invoices as received',
    storePurpose: 'TRANSACTIONAL',
    indexed: true,
    documentProperties: { supplier: 'string', documentType: 'string' },
    labelExpressions: [],
  });
  const families: Record<string, string> = {};
  let contentObjects = 0;
  for (const family of FAMILIES) {
    const filename = family.path.split('/').pop()!;
    const received = daysFromNow(-7);
    const created = await create(as, 'document-families', {
      documentStoreId: store.id,
      path: family.path,
      originalPath: family.path,
      summary: family.summary,
      size: family.size,
      metadata: family.metadata,
      created: received,
      modified: received,
    });
    families[family.key] = created.id;
    let original: Row | undefined;
    for (let index = 0; index < family.renditions; index++) {
      const rendition = index > 0;
      const content = await create(as, 'content-objects', {
        documentFamilyId: created.id,
        name: rendition ? `${filename} (text)` : filename,
        index,
        documentVersion: '1',
        summary: rendition ? 'Text extracted from the original' : family.summary,
        size: rendition ? Math.round(family.size / 9) : family.size,
        ...(rendition ? { docTransitionType: 'DERIVED', sourceContentObjectId: original!.id } : {}),
        metadata: rendition ? { extractedBy: 'demo' } : {},
        source: rendition
          ? { mime_type: 'text/plain', document_family_id: created.id }
          : {
              mime_type: family.mimeType,
              original_filename: filename,
              original_path: family.path,
              connector: 'upload',
              document_family_id: created.id,
              created: received,
            },
        created: received,
        modified: received,
      });
      original ??= content;
      contentObjects += 1;
    }
    if (family.status) await setDocumentStatus(as, created.id, { documentStatusId: documentStatuses[family.status] });
  }

  const assistant = await create(as, 'assistants', {
    projectId: contracts.id,
    name: 'Clause extractor',
    description: 'Finds the parties, term, renewal and liability clauses of each new contract',
    assistantRole: 'Contract analyst',
    color: '#7c3aed',
    chatEnabled: true,
    options: {
      prompt: 'List the parties, the term, the renewal conditions and any liability cap, quoting the clause numbers.',
      pipeline: {
        steps: [
          { ref: 'parse', name: 'Parse the document', stepType: 'MODULE', options: { moduleRef: 'parsers/pdf' } },
          { ref: 'extract', name: 'Extract the clauses', stepType: 'LLM', options: { taxonomy: 'contract-clauses' } },
        ],
      },
    },
  });

  // Automation: a new supplier contract task starts the review plan, which opens a review task.
  const plan = await create(as, 'activity-plans', {
    organizationId,
    name: 'Contract review',
    description: 'Opens a review task when a supplier contract arrives',
    steps: [
      {
        ref: 'review-task',
        name: 'Open the review task',
        stepType: 'CREATE_TASK',
        options: {
          taskData: {
            title: 'Review the new contract in ${project.name}',
            description: 'Opened by the ${activity.title} plan when a supplier contract arrived',
            statusSlug: statusSlug.todo,
            priority: 3,
            properties: { origin: 'activity' },
          },
        },
      },
    ],
  });
  const eventFilter = `task.properties.kind = "${CONTRACT_KIND}"`;
  const trigger = await create(as, 'triggers', {
    projectId: contracts.id,
    name: 'New supplier contract',
    eventKind: 'task_created',
    eventFilter,
    inputMapping: { contractTaskId: 'task.id', contractTitle: 'task.title' },
    activityPlanRef: `activity-plan://${organization.slug}/${plan.slug}`,
  });

  // The third project comes from a template: its region option is checked, its document statuses created.
  const template = await create(as, 'project-templates', { organizationId, ...ONBOARDING.template });
  const onboarding = await create(as, 'projects', {
    organizationId,
    name: ONBOARDING.project.name,
    description: ONBOARDING.project.description,
    color: ONBOARDING.project.color,
    ownerId: people.leo.id,
    statusId: pilot.id,
    projectTemplateRef: `project-template://${organization.slug}/${template.slug}`,
    options: { dataProperties: { region: ONBOARDING.project.region } },
  });

  const toLock: string[] = [];
  const comments: Row[] = [];
  const counts = { total: 0, locked: 0, assigned: 0 };
  const taskCounts = new Map<string, number>();
  const createTask = async (projectId: string, task: DemoTask, parentTaskId?: string): Promise<void> => {
    const created = await create(as, 'tasks', {
      projectId,
      title: task.title,
      description: task.description,
      statusSlug: statusSlug.todo,
      priority: task.priority,
      ...(task.dueInDays !== undefined ? { dueDate: daysFromNow(task.dueInDays) } : {}),
      ...(parentTaskId ? { parentTaskId } : {}),
      properties: task.properties ?? {},
    });
    const tasks = as.services.resource('tasks');
    if (task.assignee) await tasks.update(as, created.id, { assigneeId: people[task.assignee].id });
    if (task.status !== 'todo') await setTaskStatus(as, created.id, { statusSlug: statusSlug[task.status] });
    if (task.completedDaysAgo !== undefined) await tasks.update(as, created.id, { completedDate: daysFromNow(-task.completedDaysAgo) });
    if (task.family) await create(as, 'task-document-families', { taskId: created.id, documentFamilyId: families[task.family], role: 'source' });
    if (task.comment) comments.push({ taskId: created.id, type: 'COMMENT', text: task.comment });
    if (task.locked) toLock.push(created.id);
    counts.total += 1;
    counts.locked += task.locked ? 1 : 0;
    counts.assigned += task.assignee ? 1 : 0;
    taskCounts.set(projectId, (taskCounts.get(projectId) ?? 0) + 1);
    for (const sub of task.subTasks ?? []) await createTask(projectId, sub, created.id);
  };
  for (const project of PROJECTS) for (const task of project.tasks) await createTask(projects[project.key].id, task);
  for (const task of ONBOARDING.tasks) await createTask(onboarding.id, task);

  const expectedActivities = PROJECTS.find((p) => p.key === 'contracts')!.tasks.filter((t) => t.properties?.kind === CONTRACT_KIND).length;
  const projectSummary = (row: Row, template?: string) => ({
    id: row.id,
    name: row.name,
    slug: row.slug,
    tasks: taskCounts.get(row.id) ?? 0,
    ...(template ? { template } : {}),
  });
  return {
    actor,
    toLock,
    comments,
    summary: {
      organization: { id: organizationId, name: organization.name, slug: organization.slug },
      demoUser: { id: demoUser.id, email: demoUser.email },
      apiKey: token.token,
      users: [demoUser.email, ...COLLEAGUES.map((c) => c.email)],
      teams,
      projects: [...PROJECTS.map((p) => projectSummary(projects[p.key])), projectSummary(onboarding, template.name)],
      taskStatuses: TASK_STATUSES.map((s) => statusSlug[s.role]),
      tasks: counts,
      documentStore: { name: store.name, families: FAMILIES.length, contentObjects },
      assistant: { name: assistant.name, project: contracts.name },
      activityPlan: { name: plan.name, slug: plan.slug },
      trigger: { slug: trigger.slug, eventKind: trigger.eventKind, eventFilter, project: contracts.name },
      triggeredProjectId: contracts.id,
      expectedActivities,
    },
  };
}

/** What a person reads after a load: what was created, the demo user's key (once) and where to go next. */
export function demoSummaryText(summary: DemoSummary, baseUrl: string): string {
  const s = summary;
  const projects = s.projects.map((p) => `${p.name} (${p.tasks} tasks${p.template ? `, from the template "${p.template}"` : ''})`).join(', ');
  return [
    '',
    `Demo data loaded: organization "${s.organization.name}" (slug ${s.organization.slug})`,
    `  users       ${s.users.join(', ')}`,
    `  teams       ${s.teams.join(', ')}`,
    `  projects    ${projects}`,
    `  tasks       ${s.tasks.total} in ${s.taskStatuses.join(', ')}; ${s.tasks.locked} locked, ${s.tasks.assigned} assigned`,
    `  documents   store "${s.documentStore.name}": ${s.documentStore.families} document families, ${s.documentStore.contentObjects} content objects`,
    `  assistant   "${s.assistant.name}" in ${s.assistant.project}`,
    `  automation  plan "${s.activityPlan.name}" (a CREATE_TASK step), started in ${s.trigger.project} by trigger "${s.trigger.slug}" on ${s.trigger.eventKind} when ${s.trigger.eventFilter}`,
    '',
    `API key of ${s.demoUser.email}, owner of the organization (shown once; only its hash is stored):`,
    `  ${s.apiKey}`,
    '',
    `Open ${baseUrl}/graphql and run the saved query, with {"x-api-key": "<that key>"} in the Headers tab`,
    `(or type the key into the field at the top of ${baseUrl}/swagger-ui/: both pages share it).`,
    '',
  ].join('\n');
}

export interface DemoActivity {
  title: string;
  status: string;
}

/** The activities of the demo's triggered project once `expected` of them have ended (COMPLETED or FAILED), or at the deadline. */
export async function waitForDemoActivities(orm: MikroORM, summary: DemoSummary, timeoutMs: number): Promise<DemoActivity[]> {
  const em = orm.em.fork();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows: DemoActivity[] = await em
      .getConnection()
      .execute('select title, status from activity where project_id = ? order by created_on', [summary.triggeredProjectId]);
    const ended = rows.filter((r) => r.status === 'COMPLETED' || r.status === 'FAILED').length;
    if (ended >= summary.expectedActivities || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `npm start -- --demo`: the demo into an empty database, or a warning saying why not; the server starts either way. */
export async function loadDemoAtStart(orm: MikroORM, services: Services, baseUrl: string): Promise<void> {
  const outcome = await loadDemo(orm, services);
  if (outcome.loaded) process.stdout.write(demoSummaryText(outcome.summary, baseUrl));
  else logger.warn(`--demo: demo data not loaded: ${outcome.reason}`);
}
