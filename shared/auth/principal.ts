import type { MemberProfile, Policy } from '../store/control-items.ts';
import type { SessionRecord } from '../store/sign-in-items.ts';

/** Who is calling: the key and its member, as last read (admission re-checks what must be current). */
export interface Principal {
  keyId: string;
  memberId: string;
  /** The generation of the secret presented; older than the key's current one means rotated away. */
  generation: number;
  currentGeneration: number;
  keyState: 'active' | 'revoked';
  keyExpiresAt: string | null;
  keyPolicy: Policy;
  /** The key's version as read: admission refuses it once an administrator changed the key since. */
  keyVersion: number;
  member: MemberProfile;
  /** A holder-wallet key (`sk-<holder tag>-`). */
  holder: boolean;
  /** Present when the caller signed in with the team's provider and presents a gateway session instead of a key. */
  session?: SessionRecord | undefined;
}
