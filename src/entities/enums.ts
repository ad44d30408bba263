import { defineEnum } from '../model/enums';

/** The named enumerations of the specification, with exactly its values (docs/operations.md). */
export const TaskStatusType = defineEnum('TaskStatusType', ['OPEN', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'PENDING']);
export type TaskStatusType = (typeof TaskStatusType.values)[number];

export const ExecutionStatus = defineEnum('ExecutionStatus', ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']);
export const ExecutionStatusMessageType = defineEnum('ExecutionStatusMessageType', ['INFO', 'WARNING', 'ERROR']);
export const SortDirection = defineEnum('SortDirection', ['ASC', 'DESC']);
export const AuditAction = defineEnum('AuditAction', ['CREATE', 'UPDATE', 'DELETE']);
export const ChatMessageRole = defineEnum('ChatMessageRole', ['USER', 'ASSISTANT', 'SYSTEM', 'TOOL']);
export const WebLlmModelSize = defineEnum('WebLlmModelSize', ['SMALL', 'MEDIUM', 'LARGE']);
export const TaskActivityType = defineEnum('TaskActivityType', ['CREATED', 'UPDATED', 'STATUS_CHANGED', 'ASSIGNED', 'LOCKED', 'UNLOCKED', 'COMMENT']);
export const DocumentActorType = defineEnum('DocumentActorType', ['USER', 'API_KEY', 'SYSTEM', 'AGENT']);
export const TaxonCardinality = defineEnum('TaxonCardinality', ['ONCE_PER_DOCUMENT', 'MULTIPLE_PER_DOCUMENT', 'ONCE_PER_SEGMENT', 'MULTIPLE_PER_SEGMENT']);
export const TaxonValuePath = defineEnum('TaxonValuePath', ['VALUE_OR_ALL_CONTENT', 'VALUE_ONLY', 'ALL_CONTENT', 'METADATA', 'DERIVED', 'EXPRESSION']);
export const TaxonMetadataValue = defineEnum('TaxonMetadataValue', ['FILENAME', 'CREATED_DATE_TIME', 'OWNER_NAME', 'DOCUMENT_LABELS', 'TRANSITION']);
export const AnalyticsFieldType = defineEnum('AnalyticsFieldType', ['STRING', 'NUMBER', 'DATE', 'BOOLEAN']);
export const TaskSignalOutcome = defineEnum('TaskSignalOutcome', ['APPROVED', 'REJECTED', 'DEFERRED']);
export const SessionState = defineEnum('SessionState', ['ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED']);
export type SessionState = (typeof SessionState.values)[number];
export const PipelineStepType = defineEnum('PipelineStepType', ['MODULE', 'CREATE_TASK', 'SCRIPT', 'BRIDGE_CALL', 'EXECUTION', 'LLM', 'AGENT', 'APPROVAL']);
export const WebhookDeliveryStatus = defineEnum('WebhookDeliveryStatus', ['PENDING', 'SUCCEEDED', 'RETRYING', 'FAILED']);
