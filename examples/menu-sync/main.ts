import { jsonFileMenuStore } from './file-store.js';
import { startMenuSync } from './menu-sync.js';

/** node --import tsx examples/menu-sync/main.ts, configured by the environment (README.md). */
const env = process.env;
const required = (name: string) => env[name] || (console.error(`menu-sync: ${name} is required`), process.exit(2));

const sync = await startMenuSync({
  apiUrl: env.CUSTOMER_API_URL || 'http://localhost:3000',
  clientId: required('CLIENT_ID'),
  clientSecret: required('CLIENT_SECRET'),
  webhookSecret: required('WEBHOOK_SECRET'),
  groupId: env.GROUP_ID || 'demo-group',
  store: jsonFileMenuStore(env.MENU_FILE || 'menus.json'),
  reconcileEverySeconds: Number(env.RECONCILE_EVERY_SECONDS || 300),
  port: Number(env.PORT || 4000),
  log: (line) => console.log(`${new Date().toISOString()} ${line}`),
});
console.log(`menu-sync listening on ${sync.url}`);

const stop = () => void sync.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
