// attnlab's cross-origin isolation service worker. A static host sends no
// Cross-Origin-Opener-Policy / Cross-Origin-Embedder-Policy headers, and without them a page is
// not cross-origin isolated: no SharedArrayBuffer, so no threaded (pthread) engine. Registered by
// web/core/coi.js, this worker re-serves every same-origin response of the page with
//   Cross-Origin-Opener-Policy: same-origin
//   Cross-Origin-Embedder-Policy: require-corp
//   Cross-Origin-Resource-Policy: same-origin
// added; the page reloads once when the worker first takes control, and the reloaded page is
// isolated. Only the guide's own page is: its folder's URL or its index.html. Other pages under
// the same folder (a whole site's, when the guide sits at the site's root) and what they load pass
// through untouched, so the guide never blocks another page's cross-origin images or frames.
// Cross-origin requests pass through untouched (under require-corp they load only if their server
// allows it, as on any isolated page; the guide itself loads nothing cross-origin).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function isolated(response) {
  // Opaque and error responses cannot be rebuilt (and need no headers of ours).
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  if (!headers.has('Cross-Origin-Resource-Policy')) headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// The guide's page: the worker's folder itself, or index.html in it (any query or fragment).
function guidePage(url) {
  const folder = new URL('./', self.location.href).pathname;
  const p = new URL(url).pathname;
  return p === folder || p === `${folder}index.html`;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // A devtools quirk: only-if-cached is allowed for same-origin mode alone.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  if (new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    if (guidePage(request.url)) event.respondWith(fetch(request).then(isolated));
    return;
  }
  // a request of another page in the folder goes to the network as that page made it (a Worker's
  // requests, the pthread workers' scripts among them, are isolated: they serve the guide)
  event.respondWith(
    (event.clientId ? self.clients.get(event.clientId) : Promise.resolve(null)).then((client) =>
      client?.type === 'window' && !guidePage(client.url) ? fetch(request) : fetch(request).then(isolated)
    )
  );
});
