/** An e-mail address: something, @, a domain with a dot; no spaces or angle brackets. */
export const EMAIL_ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** `Name <a@b.c>` → `{ name: 'Name', address: 'a@b.c' }`; `a@b.c` → `{ address: 'a@b.c' }`; null without an address. */
export function senderOf(mailFrom: string): { name?: string; address: string } | null {
  const named = /^(.*?)\s*<([^>]+)>\s*$/.exec(mailFrom);
  const address = (named?.[2] ?? mailFrom).trim();
  if (!EMAIL_ADDRESS.test(address)) return null;
  const name = named?.[1]?.trim();
  return name ? { name, address } : { address };
}
