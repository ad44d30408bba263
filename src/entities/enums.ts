import { defineEnum } from '../model/enums';

/** The named enumerations of the specification, with exactly its values (docs/operations.md), each value explained. */
export const TaskStatusType = defineEnum('TaskStatusType', ['OPEN', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'PENDING'], {
  description: 'The kind of state a task status stands for; an organization names its own statuses (slugs) and gives each one of these types',
  values: {
    OPEN: 'Not started',
    IN_PROGRESS: 'Being worked on',
    DONE: 'Finished',
    BLOCKED: 'Cannot go on until something else happens',
    PENDING: 'Waiting to be taken up',
  },
});
export type TaskStatusType = (typeof TaskStatusType.values)[number];

export const ExecutionStatus = defineEnum('ExecutionStatus', ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'], {
  description: 'Where an execution (or one of its pipeline steps) stands',
  values: {
    PENDING: 'Recorded, not started yet',
    RUNNING: 'Started and not finished',
    SUCCEEDED: 'Finished without error',
    FAILED: 'Finished with an error',
    CANCELLED: 'Stopped by the cancel operation before it finished',
  },
});
export const ExecutionStatusMessageType = defineEnum('ExecutionStatusMessageType', ['INFO', 'WARNING', 'ERROR'], {
  description: 'The severity of a message about an execution',
  values: { INFO: 'Information', WARNING: 'Something that did not stop the execution but deserves attention', ERROR: 'An error' },
});
export const SortDirection = defineEnum('SortDirection', ['ASC', 'DESC'], {
  description: 'The direction of a sort',
  values: { ASC: 'Ascending: smallest (or oldest) first', DESC: 'Descending: largest (or newest) first' },
});
export const AuditAction = defineEnum('AuditAction', ['CREATE', 'UPDATE', 'DELETE'], {
  description: 'What a recorded change did to its row',
  values: { CREATE: 'The row was created', UPDATE: 'The row was updated', DELETE: 'The row was deleted' },
});
export const ChatMessageRole = defineEnum('ChatMessageRole', ['USER', 'ASSISTANT', 'SYSTEM', 'TOOL'], {
  description: 'Who speaks in a chat message, as chat models name the roles',
  values: {
    USER: 'A person',
    ASSISTANT: 'The model or assistant answering',
    SYSTEM: 'Instructions that frame the conversation',
    TOOL: 'The result of a tool the assistant called',
  },
});
export const WebLlmModelSize = defineEnum('WebLlmModelSize', ['SMALL', 'MEDIUM', 'LARGE'], {
  description: 'The size class of an in-browser language model',
  values: { SMALL: 'Small model', MEDIUM: 'Medium-sized model', LARGE: 'Large model' },
});
export const TaskActivityType = defineEnum('TaskActivityType', ['CREATED', 'UPDATED', 'STATUS_CHANGED', 'ASSIGNED', 'LOCKED', 'UNLOCKED', 'COMMENT'], {
  description: 'What a task activity records',
  values: {
    CREATED: 'The task was created',
    UPDATED: 'Fields of the task were changed',
    STATUS_CHANGED: 'The status of the task (statusSlug) changed',
    ASSIGNED: 'The assignee of the task changed',
    LOCKED: 'The task was locked (lock operation)',
    UNLOCKED: 'The task was unlocked (unlock operation); the text carries the reason',
    COMMENT: 'A comment written on the task',
  },
});
export const DocumentActorType = defineEnum('DocumentActorType', ['USER', 'API_KEY', 'SYSTEM', 'AGENT'], {
  description: 'The kind of actor on whose behalf something was written',
  values: {
    USER: 'A user signed in with a bearer token or Basic credentials',
    API_KEY: 'A caller authenticated with an API key',
    SYSTEM: 'The server itself (background jobs, automations)',
    AGENT: 'An agent',
  },
});
export const TaxonCardinality = defineEnum('TaxonCardinality', ['ONCE_PER_DOCUMENT', 'MULTIPLE_PER_DOCUMENT', 'ONCE_PER_SEGMENT', 'MULTIPLE_PER_SEGMENT'], {
  description: 'How many values a taxon may take in a document',
  values: {
    ONCE_PER_DOCUMENT: 'At most one value in the whole document',
    MULTIPLE_PER_DOCUMENT: 'Any number of values in the document',
    ONCE_PER_SEGMENT: 'At most one value in each segment of the document',
    MULTIPLE_PER_SEGMENT: 'Any number of values in each segment',
  },
});
export const TaxonValuePath = defineEnum('TaxonValuePath', ['VALUE_OR_ALL_CONTENT', 'VALUE_ONLY', 'ALL_CONTENT', 'METADATA', 'DERIVED', 'EXPRESSION'], {
  description: "Where a taxon's value is taken from",
  values: {
    VALUE_OR_ALL_CONTENT: 'The extracted value, or the whole content when there is none',
    VALUE_ONLY: 'The extracted value only',
    ALL_CONTENT: 'The whole content the taxon covers',
    METADATA: 'A metadata value of the document (see TaxonMetadataValue)',
    DERIVED: 'Derived from other taxons',
    EXPRESSION: 'Computed by an expression',
  },
});
export const TaxonMetadataValue = defineEnum('TaxonMetadataValue', ['FILENAME', 'CREATED_DATE_TIME', 'OWNER_NAME', 'DOCUMENT_LABELS', 'TRANSITION'], {
  description: 'Which document metadata a METADATA taxon takes as its value',
  values: {
    FILENAME: "The document's file name",
    CREATED_DATE_TIME: 'When the document was created',
    OWNER_NAME: "The name of the document's owner",
    DOCUMENT_LABELS: "The document's labels",
    TRANSITION: 'The transition that produced the document',
  },
});
export const AnalyticsFieldType = defineEnum('AnalyticsFieldType', ['STRING', 'NUMBER', 'DATE', 'BOOLEAN'], {
  description: 'The type of a field as the analytics service reads it',
  values: { STRING: 'Text', NUMBER: 'Number', DATE: 'Date', BOOLEAN: 'True or false' },
});
export const TaskSignalOutcome = defineEnum('TaskSignalOutcome', ['APPROVED', 'REJECTED', 'DEFERRED'], {
  description: 'The outcome a task signals back to what waits on it',
  values: { APPROVED: 'Approved', REJECTED: 'Rejected', DEFERRED: 'Put off to later' },
});
export const SessionState = defineEnum('SessionState', ['ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED'], {
  description: 'Where a session stands',
  values: { ACTIVE: 'Open: still running', COMPLETED: 'Ended normally', FAILED: 'Ended with an error', CANCELLED: 'Stopped before it ended' },
});
export type SessionState = (typeof SessionState.values)[number];
export const PipelineStepType = defineEnum('PipelineStepType', ['MODULE', 'CREATE_TASK', 'SCRIPT', 'BRIDGE_CALL', 'EXECUTION', 'LLM', 'AGENT', 'APPROVAL'], {
  description: 'What a pipeline step does',
  values: {
    MODULE: 'A module step: the module its options name',
    CREATE_TASK: 'Creates a task from options.taskData',
    SCRIPT: 'Evaluates a JSONata expression (options.expression)',
    BRIDGE_CALL: 'Calls an endpoint (options.endpointName) of a service bridge (options.bridge)',
    EXECUTION: 'An execution step',
    LLM: 'A language-model step',
    AGENT: 'An agent step',
    APPROVAL: 'An approval step',
  },
});
export const WebhookDeliveryStatus = defineEnum('WebhookDeliveryStatus', ['PENDING', 'SUCCEEDED', 'RETRYING', 'FAILED'], {
  description: 'Where the delivery of one event to one webhook endpoint stands',
  values: {
    PENDING: 'Not attempted yet',
    SUCCEEDED: 'The endpoint answered with a success status',
    RETRYING: 'An attempt failed; another one is scheduled',
    FAILED: 'Given up: no further attempt will be made',
  },
});
