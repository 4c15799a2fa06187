/**
 * The viewer's gateway key lives in this tab's session storage only: gone when the tab closes, never in local
 * storage, a cookie or a URL.
 */
const storageName = 'gateway-usage-key';

export function readSessionKey(): string | null {
  return sessionStorage.getItem(storageName);
}

export function saveSessionKey(key: string): void {
  sessionStorage.setItem(storageName, key);
}

export function forgetSessionKey(): void {
  sessionStorage.removeItem(storageName);
}
