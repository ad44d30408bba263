import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../../auth/authenticate';
import { ApiError, BadRequestError, RateLimitedError, UnauthenticatedError } from '../../errors/api-error';
import { nameInputValuesRule } from '../enum-messages';
import { formatGraphqlError } from '../errors';
import { requestBoundsIssue } from '../json-depth';
import { assertAffordable, depthRule } from '../limits';
import type { RateLimits, RateSubject } from '../../http/rate-limit';
import type { RequestContext } from '../../engine/context';
import { ChangeFeed } from './change-feed';
import { LiveConnection, type LiveContext } from './live-connection';
import { UnreadMessages } from './unread-messages';

/** The path of GraphQL over HTTP, where subscriptions are served over WebSocket too. */
const PATH = '/graphql';
/** Close code of a connection whose credentials are missing or refused (at the start, or later). */
export const CLOSE_UNAUTHORIZED = 4401;
/** Close code of a connection refused by the caller's rate limit. */
export const CLOSE_TOO_MANY_REQUESTS = 4429;
/** Subscriptions one connection may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** Largest message a client may send (a subscribe message: a document and its variables). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

export interface LiveUpdatesOptions {
  /** Where the change feed LISTENs: a session of its own (DATABASE_DIRECT_URL). */
  databaseUrl: string;
  authenticator: Authenticator;
  limits: RateLimits;
  schema: GraphQLSchema;
  /** Drops the cached credentials and memberships (on a change of access: see ChangeFeed). */
  accessChanged(): void;
  /** The client address of an upgrade request (TRUST_PROXY applied); absent, the socket's. */
  clientAddress?(request: IncomingMessage): string | undefined;
}

type ConnectionContext = Context<Record<string, unknown> | undefined, Extra>;

interface Connection {
  live: LiveConnection;
  /** Its key's budget and its user's, as for POST /graphql. */
  rate: RateSubject;
}

interface Attached {
  server: Server;
  onUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  dispose(): Promise<void>;
}

/**
 * Credentials in the connection parameters, under the names of the HTTP headers (`x-api-key`,
 * `authorization`), at the top or in a `headers` object as some clients send them.
 */
function headersOf(params: Record<string, unknown> | undefined): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  const nested = params?.headers;
  for (const source of [typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>) : {}, params ?? {}]) {
    for (const [name, value] of Object.entries(source)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** A close reason within the protocol's 123 bytes. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/** The error an ApiError is on a subscription (formatted by `formatGraphqlError` like any other). */
function asGraphqlError(error: ApiError): GraphQLError {
  return new GraphQLError(error.message, { originalError: error });
}

/**
 * GraphQL subscriptions over the graphql-ws protocol on the path of GraphQL over HTTP, with the same
 * credentials (in the connection parameters), rate limit, validation rules, cost limit and errors. Each
 * connection's credentials are checked when it starts (4401 when refused) and again for every row
 * delivered (from the access cache): a connection whose key is revoked is closed with 4401.
 */
export class LiveUpdates {
  private readonly feed: ChangeFeed;
  private readonly attached: Attached[] = [];
  private readonly connections = new WeakMap<ConnectionContext, Connection>();
  private readonly unread = new UnreadMessages();

  constructor(private readonly options: LiveUpdatesOptions) {
    this.feed = new ChangeFeed(options.databaseUrl, options.accessChanged);
  }

  /** Serves subscriptions on `server` (upgrades of PATH); the database is listened to from the first subscription on. */
  attach(server: Server): void {
    const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
    const served = useServer<Record<string, unknown> | undefined>(
      {
        onConnect: (ctx) => this.connect(ctx),
        onSubscribe: (ctx, _id, payload) => this.subscribe(ctx, payload),
        onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: this.format(result.errors) } : undefined),
        onError: (_ctx, _id, _payload, errors) => this.format(errors),
      },
      sockets,
    );
    const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (new URL(request.url ?? '/', 'http://localhost').pathname !== PATH) {
        // Nothing else upgrades connections: refused at once rather than left hanging.
        if (server.listenerCount('upgrade') === 1) socket.destroy();
        return;
      }
      sockets.handleUpgrade(request, socket, head, (websocket) => sockets.emit('connection', websocket, request));
    };
    server.on('upgrade', onUpgrade);
    this.attached.push({ server, onUpgrade, dispose: async () => served.dispose() });
  }

  /**
   * Closes every connection (1001 Going away: their clients reconnect, to another process) and takes no
   * new one. A shutdown calls it at once: an HTTP server's close waits for every socket, and a
   * subscription's never ends by itself.
   */
  async disconnect(): Promise<void> {
    for (const { server, onUpgrade, dispose } of this.attached.splice(0)) {
      server.off('upgrade', onUpgrade);
      await dispose();
    }
  }

  /** Disconnects (see `disconnect`) and stops listening. */
  async close(): Promise<void> {
    await this.disconnect();
    await this.feed.close();
  }

  private async connect(ctx: ConnectionContext): Promise<boolean> {
    const headers = headersOf(ctx.connectionParams);
    const address = this.options.clientAddress?.(ctx.extra.request) ?? ctx.extra.request.socket.remoteAddress;
    const { authenticator, limits } = this.options;
    const identity = await authenticator.resolve(headers, address);
    const rate = { key: identity.rateKey, user: identity.context?.user?.id };
    if (!(await limits.consume(rate)).allowed) {
      ctx.extra.socket.close(CLOSE_TOO_MANY_REQUESTS, 'Too many requests');
      return false;
    }
    if (!identity.context) {
      ctx.extra.socket.close(
        CLOSE_UNAUTHORIZED,
        closeReason(`Unauthorized: ${identity.refusal ?? 'send an API key (x-api-key) or a bearer token (authorization) in the connection parameters'}`),
      );
      return false;
    }
    const identify = async (): Promise<RequestContext | undefined> => {
      const again = await authenticator.resolve(headers, address);
      if (again.context) return again.context;
      ctx.extra.socket.close(CLOSE_UNAUTHORIZED, closeReason(`Unauthorized: ${again.refusal ?? 'credentials refused'}`));
      return undefined;
    };
    this.connections.set(ctx, { live: new LiveConnection(this.feed, identify), rate });
    this.unread.add(identity.context.user!.id, ctx.extra.socket);
    return true;
  }

  /** The subscribe message, checked as a POST /graphql is (rate limit, rules, cost), or its errors. */
  private async subscribe(ctx: ConnectionContext, payload: { query: string; operationName?: string | null; variables?: Record<string, unknown> | null }) {
    const connection = this.connections.get(ctx)!;
    const { schema, limits } = this.options;
    if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      return [
        new GraphQLError(`a connection holds at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions: complete some first, or open another connection`),
      ];
    }
    const decision = await limits.consume(connection.rate);
    if (!decision.allowed) return [asGraphqlError(new RateLimitedError(`rate limit exceeded: retry in ${decision.retryAfter} s`))];
    const outOfBounds = requestBoundsIssue(payload);
    if (outOfBounds) return [asGraphqlError(new BadRequestError(outOfBounds))];
    let document: DocumentNode;
    try {
      document = parse(payload.query);
    } catch (error) {
      return [error as GraphQLError];
    }
    const invalid = validate(schema, document, [...specifiedRules, depthRule, nameInputValuesRule]);
    if (invalid.length) return invalid;
    const operation = getOperationAST(document, payload.operationName);
    if (!operation) return [new GraphQLError('name one operation of the document (operationName)')];
    if (operation.operation !== 'subscription')
      return [new GraphQLError('only subscriptions run over the WebSocket: send queries and mutations to POST /graphql')];
    const variables = payload.variables ?? undefined;
    try {
      assertAffordable(schema, document, operation, variables);
    } catch (error) {
      return [error as GraphQLError];
    }
    const requestContext = await connection.live.identify();
    if (!requestContext) return [asGraphqlError(new UnauthenticatedError('credentials refused'))];
    const contextValue: LiveContext = { ctx: requestContext, live: connection.live };
    return { schema, document, operationName: payload.operationName, variableValues: variables, contextValue };
  }

  private format(errors: readonly GraphQLError[] | readonly GraphQLFormattedError[]): GraphQLFormattedError[] {
    return errors.map((error) => formatGraphqlError(error instanceof GraphQLError ? error.toJSON() : error, error));
  }
}
