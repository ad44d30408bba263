import type { RequestContext } from '../engine/context';

/** What every resolver receives: the request's unit of work. */
export interface GraphqlContext {
  ctx: RequestContext;
  /** Settles once every root field started so far has settled (see access-changes.ts). */
  rootsSettled?: Promise<void>;
}
