import type { RequestContext } from '../engine/context';

/** What every resolver receives: the request's unit of work. */
export interface GraphqlContext {
  ctx: RequestContext;
}
