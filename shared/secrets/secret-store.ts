/**
 * Where provider credentials live: a 0600 file on one machine, Secrets Manager on AWS. Only the admin API
 * writes; inference reads. Values never appear in the tables, logs or any API response.
 */
export interface SecretStore {
  read(name: string): Promise<string>;
  write(name: string, value: string): Promise<void>;
  /** Deletes a secret at once (no recovery window): for a credential whose connection could not be stored. */
  remove(name: string): Promise<void>;
}
