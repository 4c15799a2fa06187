import type { Signed } from './app.tsx';

/** What every view gets: who is signed in, and what to do when the gateway stops accepting them. */
export interface ViewContext {
  signed: Signed;
  onUnauthorized: () => void;
}
