/**
 * The most webhook destinations one application may have, declared once (docs/webhooks.md says why ten). It bounds
 * what one menu publish fans out to per application and location, and the configuration mail a burst of creates
 * sends its owner (one per create, contract 6.5 rule 8). The admin API, the CLI and the console refuse the next one.
 */
export const DESTINATIONS_PER_APPLICATION = 10;
