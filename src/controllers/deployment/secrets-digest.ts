import { createHmac } from 'node:crypto';

/**
 * A salted digest of secret names and values, kept in status so that a change can be detected even
 * where the service does not echo values back. The salt (the resource's uid) keeps equal values in
 * two resources from having equal digests; nothing about a value can be read from it.
 */
export function secretsDigest(salt: string, secrets: { name: string; value: string }[]): string {
  const canonical = JSON.stringify(
    [...secrets].sort((a, b) => a.name.localeCompare(b.name)).map((s) => [s.name, s.value]),
  );
  return `hmac-sha256:${createHmac('sha256', salt).update(canonical).digest('hex')}`;
}
