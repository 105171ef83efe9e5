/**
 * Import this before any handler code. The local runtime traces nothing
 * (Powertools Tracer is off outside Lambda), yet importing the Tracer loads
 * the X-Ray SDK, whose default automatic mode creates a cls-hooked namespace
 * at load: an async_hooks hook with destroy tracking on every promise and
 * socket of the process. Under load that was a fifth to a third of the local
 * runtime's CPU (bench: `--only throughput`; a profile shows
 * promiseInitHookWithDestroyTracking and registerDestroyHook on top). Manual
 * mode leaves the hook out; nothing here ever opens a segment. Set only where
 * nobody chose otherwise.
 */
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';

export {};
