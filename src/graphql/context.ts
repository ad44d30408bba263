import type { RequestContext } from '../services/context';

/** What every resolver receives: the request's unit of work. */
export interface GraphqlContext {
  ctx: RequestContext;
}
