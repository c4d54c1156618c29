// Reads a wasm module's function bodies, data segments and function names,
// and writes the same module with some functions' bodies replaced by
// `unreachable`: the gzip -9 bytes a set of functions costs is the whole
// module's minus the stubbed one's, measured where the functions sit, beside
// the code they share words and patterns with. Used by wasm_table.mjs (the
// gzip column) and wasm_floor.mjs (what the first screen runs).

import { gzipSync } from "node:zlib";

/** gzip -9 bytes of `buf`. */
export const gzipBytes = (buf) => gzipSync(buf, { level: 9 }).length;

function reader(buf, at) {
  const r = {
    at,
    byte: () => buf[r.at++],
    leb() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = buf[r.at++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if ((b & 0x80) === 0) return result;
      }
    },
    name() {
      const len = r.leb();
      const text = buf.toString("utf8", r.at, r.at + len);
      r.at += len;
      return text;
    },
    limits() {
      const flags = r.byte();
      r.leb();
      if (flags & 1) r.leb();
    },
    // A constant expression: its instructions up to `end`.
    expr() {
      for (;;) {
        const op = r.byte();
        if (op === 0x0b) return;
        if (op === 0x41 || op === 0x42 || op === 0x23) r.leb();
        else if (op === 0xd2) r.leb();
        else if (op === 0xd0) r.byte();
        else throw new Error(`constant expression opcode 0x${op.toString(16)} not read`);
      }
    },
  };
  return r;
}

/**
 * The module's parts: the number of imported functions (a body's function
 * index is that plus its place in the code section), each body's byte
 * range, the code section's range, each data segment's bytes' range, and
 * the function names of a `name` section when there is one.
 */
export function parseWasm(buf) {
  const parts = { funcImports: 0, bodies: [], code: null, data: [], names: new Map() };
  const r = reader(buf, 8);
  while (r.at < buf.length) {
    const sectionStart = r.at;
    const id = r.byte();
    const size = r.leb();
    const end = r.at + size;
    if (id === 2) imports(r, parts);
    else if (id === 10) {
      parts.code = { start: sectionStart, end };
      const count = r.leb();
      for (let i = 0; i < count; i++) {
        const bodySize = r.leb();
        parts.bodies.push({ index: parts.funcImports + i, start: r.at, end: r.at + bodySize });
        r.at += bodySize;
      }
    } else if (id === 11) dataSegments(r, parts);
    else if (id === 0 && r.name() === "name") functionNames(r, end, parts);
    r.at = end;
  }
  return parts;
}

function imports(r, parts) {
  const count = r.leb();
  for (let i = 0; i < count; i++) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) {
      parts.funcImports += 1;
      r.leb();
    } else if (kind === 1) {
      r.byte();
      r.limits();
    } else if (kind === 2) r.limits();
    else if (kind === 3) {
      r.byte();
      r.byte();
    } else if (kind === 4) {
      r.byte();
      r.leb();
    }
  }
}

function dataSegments(r, parts) {
  const count = r.leb();
  for (let i = 0; i < count; i++) {
    const flag = r.leb();
    if (flag === 2) r.leb();
    if (flag !== 1) r.expr();
    const len = r.leb();
    parts.data.push({ start: r.at, end: r.at + len });
    r.at += len;
  }
}

function functionNames(r, end, parts) {
  while (r.at < end) {
    const sub = r.byte();
    const size = r.leb();
    const subEnd = r.at + size;
    if (sub === 1) {
      const count = r.leb();
      for (let i = 0; i < count; i++) {
        const index = r.leb();
        parts.names.set(index, r.name());
      }
    }
    r.at = subEnd;
  }
}

function leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/**
 * The module with the bodies of the functions in `stubbed` (indices)
 * replaced by `unreachable`, and with `zeroData` every data segment's bytes
 * zeroed (their length kept).
 */
export function stubbedWasm(buf, parts, stubbed, { zeroData = false } = {}) {
  const STUB = [3, 0x00, 0x00, 0x0b];
  const pieces = [];
  for (const body of parts.bodies) {
    if (stubbed.has(body.index)) pieces.push(Buffer.from(STUB));
    else pieces.push(Buffer.from(leb(body.end - body.start)), buf.subarray(body.start, body.end));
  }
  const payload = Buffer.concat([Buffer.from(leb(parts.bodies.length)), ...pieces]);
  const out = Buffer.concat([
    buf.subarray(0, parts.code.start),
    Buffer.from([10, ...leb(payload.length)]),
    payload,
    buf.subarray(parts.code.end),
  ]);
  if (zeroData) {
    const shift = out.length - buf.length;
    for (const { start, end } of parts.data) {
      const at = start > parts.code.start ? start + shift : start;
      out.fill(0, at, at + (end - start));
    }
  }
  return out;
}
