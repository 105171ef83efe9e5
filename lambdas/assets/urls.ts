/** The public URL of a sports logo (contract 2.8 rule 4), or null when there is no image. */
export function sportsLogoUrl(baseUrl: string, name: string | null): string | null {
  return name === null ? null : `${baseUrl}/v1/assets/sports-logo/${encodeURIComponent(name)}`;
}
