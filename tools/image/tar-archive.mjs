// A tar archive whose bytes depend only on the entries given: entries sorted by path, every
// parent directory present, owner 0:0 with no user or group names, one fixed mtime, modes
// normalised by the caller. POSIX ustar headers; a path or link target that does not fit ustar's
// fields gets a PAX extended header ("x") before it, as GNU tar and every OCI runtime read it.

const BLOCK = 512;

/**
 * The archive of `entries` (see tar-archive.d.mts for the entry shapes) with every timestamp set
 * to `mtime` (seconds since the epoch). Entries are written sorted by path (byte order);
 * directories that are parents of an entry and not given are added with mode 0755. Throws on an
 * absolute path, a `..` or `.` segment, an empty path, or the same path given twice.
 */
export function tarArchive(entries, { mtime }) {
  if (!Number.isInteger(mtime) || mtime < 0) throw new Error(`tar mtime must be a whole number of seconds >= 0, got ${mtime}`);
  const byPath = new Map();
  for (const entry of entries) {
    checkPath(entry.path);
    if (byPath.has(entry.path)) throw new Error(`tar entry ${entry.path} is given twice`);
    byPath.set(entry.path, entry);
  }
  for (const path of [...byPath.keys()]) {
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      const existing = byPath.get(parent);
      if (existing === undefined) byPath.set(parent, { path: parent, type: 'directory', mode: 0o755 });
      else if (existing.type !== 'directory') throw new Error(`tar entry ${path} lies under ${parent}, which is a ${existing.type}, not a directory`);
    }
  }
  const sorted = [...byPath.values()].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const chunks = [];
  for (const entry of sorted) chunks.push(...entryBlocks(entry, mtime));
  chunks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(chunks);
}

function checkPath(path) {
  if (typeof path !== 'string' || path === '') throw new Error('tar entry path must be a non-empty string');
  if (path.startsWith('/') || path.endsWith('/')) throw new Error(`tar entry path ${path} must be relative, without a leading or trailing slash`);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw new Error(`tar entry path ${path} has an empty, "." or ".." segment`);
  }
}

function entryBlocks(entry, mtime) {
  switch (entry.type) {
    case 'file':
      return withPax({ name: entry.path, mode: entry.mode, size: entry.data.length, typeflag: '0', linkname: '' }, mtime, entry.data);
    case 'directory':
      return withPax({ name: `${entry.path}/`, mode: entry.mode, size: 0, typeflag: '5', linkname: '' }, mtime, undefined);
    case 'symlink':
      return withPax({ name: entry.path, mode: 0o777, size: 0, typeflag: '2', linkname: entry.target }, mtime, undefined);
    default:
      throw new Error(`tar entry ${entry.path} has unknown type ${entry.type}`);
  }
}

/** The header (preceded by a PAX header when a name does not fit) and the padded data. */
function withPax(fields, mtime, data) {
  const blocks = [];
  const split = splitUstarName(fields.name);
  const linkFits = isAscii(fields.linkname) && Buffer.byteLength(fields.linkname) <= 100;
  const records = [];
  if (split === undefined) records.push(paxRecord('path', fields.name));
  if (!linkFits) records.push(paxRecord('linkpath', fields.linkname));
  if (records.length > 0) {
    const pax = Buffer.concat(records);
    // The PAX header's own name is informational; a fixed one keeps the bytes input-only.
    blocks.push(header({ prefix: '', name: 'PaxHeader', mode: 0o644, size: pax.length, typeflag: 'x', linkname: '' }, mtime), ...padded(pax));
  }
  const { prefix, name } = split ?? { prefix: '', name: truncateAscii(fields.name, 100) };
  const linkname = linkFits ? fields.linkname : truncateAscii(fields.linkname, 100);
  blocks.push(header({ prefix, name, mode: fields.mode, size: fields.size, typeflag: fields.typeflag, linkname }, mtime));
  if (data !== undefined) blocks.push(...padded(data));
  return blocks;
}

/** ustar's name (100 bytes) and prefix (155 bytes), split at a slash; undefined if it cannot fit. */
function splitUstarName(path) {
  if (!isAscii(path)) return undefined;
  if (path.length <= 100) return { prefix: '', name: path };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (prefix.length <= 155 && name.length <= 100 && name !== '') return { prefix, name };
  }
  return undefined;
}

function isAscii(text) {
  return /^[\x20-\x7e]*$/.test(text);
}

function truncateAscii(text, length) {
  return text.replace(/[^\x20-\x7e]/g, '_').slice(0, length);
}

/** One PAX record, "<length> <key>=<value>\n", where length counts the whole record. */
function paxRecord(key, value) {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  const digits = String(bodyLength).length;
  let length = bodyLength + digits;
  if (String(length).length > digits) length += 1;
  return Buffer.from(`${length}${body}`);
}

function padded(data) {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest)];
}

function header({ prefix, name, mode, size, typeflag, linkname }, mtime) {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'ascii');
  writeOctal(block, 100, 8, mode);
  writeOctal(block, 108, 8, 0); // uid
  writeOctal(block, 116, 8, 0); // gid
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, mtime);
  block.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  block.write(typeflag, 156, 1, 'ascii');
  block.write(linkname, 157, 100, 'ascii');
  block.write('ustar\u000000', 257, 8, 'ascii');
  // uname and gname stay empty: owners are numeric, as in the images registries serve.
  block.write(prefix, 345, 155, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'ascii');
  return block;
}

function writeOctal(block, offset, width, value) {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new Error(`tar field value ${value} does not fit ${width - 1} octal digits`);
  block.write(`${digits.padStart(width - 1, '0')}\u0000`, offset, width, 'ascii');
}
