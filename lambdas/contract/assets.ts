import { fileURLToPath } from 'node:url';

/** The repository folder of the sports logos: the local runtime serves it in place, the stack ships it in the assets function's package. */
export const SPORTS_LOGO_DIR = /* @__PURE__ */ fileURLToPath(new URL('../../assets/sports-logo/', import.meta.url));
/** The logos' folder in the assets function's package, beside the bundle (the function's default SPORTS_LOGO_DIR). */
export const SPORTS_LOGO_PACKAGE_DIR = 'sports-logo';
