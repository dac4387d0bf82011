// The floor of a restarted syncer's lists, for syncer-startup: a Node process (the syncer's Node,
// no vcsync module loaded) that does only what a restart cannot skip before its caches are
// synced: it lists, concurrently, every collection the syncer's informers list, page by page with
// the syncer's page size (500), each page's JSON parsed whole, keeping nothing. It prints one JSON
// line once every list has ended: `{ "listedMs", "items", "cpuMs" }`: performance.now() then (ms
// since the process started), the items listed, and its CPU time (user + system).
//
//   node benchmarks/lib/bare-lister.mjs <collection URL> [<collection URL> ...]
// e.g. http://127.0.0.1:4000/api/v1/endpoints (plain-HTTP devclusters, no credentials).
import http from 'node:http';

const PAGE_SIZE = 500;
const agent = new http.Agent({ keepAlive: true });

/** GET `url`; resolves with the body of a 200, rejects otherwise. */
function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { accept: 'application/json' } }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => (response.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${url}: ${response.statusCode}`))));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Lists the collection at `collection` page by page; resolves with the number of items. */
async function listAll(collection) {
  let items = 0;
  let token = '';
  do {
    const url = new URL(collection);
    url.searchParams.set('limit', String(PAGE_SIZE));
    if (token !== '') url.searchParams.set('continue', token);
    const page = JSON.parse((await get(url)).toString('utf8'));
    items += page.items.length;
    token = page.metadata?.continue ?? '';
  } while (token !== '');
  return items;
}

const counts = await Promise.all(process.argv.slice(2).map(listAll));
const cpu = process.cpuUsage();
console.log(JSON.stringify({ listedMs: performance.now(), items: counts.reduce((sum, count) => sum + count, 0), cpuMs: (cpu.user + cpu.system) / 1000 }));
agent.destroy();
