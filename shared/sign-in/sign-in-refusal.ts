/** Why a sign-in was refused: audited by code, answered as a 403 (401 for a token that does not verify). */
export class SignInRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 403,
  ) {
    super(message);
    this.name = 'SignInRefusal';
  }
}
