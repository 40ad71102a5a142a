// Script errors, failed promises and Content-Security-Policy violations of this page, kept in
// `window.__errors` (the browser test asserts there are none) and logged.
window.__errors = [];
const keep = (what) => {
  window.__errors.push(what);
  console.error(what);
};
window.addEventListener('error', (e) => keep(`error: ${e.message} at ${e.filename}:${e.lineno}`));
window.addEventListener('unhandledrejection', (e) => keep(`unhandled rejection: ${e.reason?.stack || e.reason}`));
document.addEventListener('securitypolicyviolation', (e) => keep(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
