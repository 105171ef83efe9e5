import type { Http } from './http.js';
import type { Report } from './report.js';

/** What every check needs: the stage, the smoke application's credentials and where results go. */
export type Context = { http: Http; report: Report; groupId: string; clientId: string; clientSecret: string };
