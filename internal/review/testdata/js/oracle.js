// The real consumers review's parsers are compared with (see
// consumers_test.go). One request per line on stdin:
//   {"kind": "json"|"jsonc"|"yaml"|"toml", "src": "<base64>"}
// one answer per line on stdout:
//   {"ok": bool, "errors": n, "nodes": [[path, kind, value], ...]}
// Paths join keys with "."; kinds: o a s n b z (like review.Node).
"use strict";
const readline = require("node:readline");
const jsonc = require("jsonc-parser");
const yaml = require("js-yaml");
const toml = require("smol-toml");

function flatten(v, path, out) {
  const join = (k) => (path === "" ? String(k) : path + "." + k);
  if (v === null || v === undefined) out.push([path, "z", "null"]);
  else if (Array.isArray(v)) {
    out.push([path, "a", ""]);
    v.forEach((e, i) => flatten(e, join(i), out));
  } else if (v instanceof Date) out.push([path, "d", ""]); // compared by presence only
  else if (typeof v === "object") {
    out.push([path, "o", ""]);
    for (const k of Object.keys(v)) flatten(v[k], join(k), out);
  } else if (typeof v === "string") out.push([path, "s", v.toWellFormed()]);
  else if (typeof v === "number" || typeof v === "bigint") out.push([path, "n", String(v)]);
  else if (typeof v === "boolean") out.push([path, "b", String(v)]);
  else out.push([path, "s", String(v)]);
}

function parse(kind, text) {
  switch (kind) {
    case "json": // what npm does: drop a BOM, then JSON.parse
      return { v: JSON.parse(text.replace(/^\uFEFF/, "")), errors: 0 };
    case "jsonc": { // what VS Code does for settings, tasks, launch, devcontainer
      const errors = [];
      const v = jsonc.parse(text.replace(/^\uFEFF/, ""), errors, { allowTrailingComma: true });
      return { v, errors: errors.length };
    }
    case "yaml": {
      const docs = yaml.loadAll(text);
      return { v: docs.length === 1 ? docs[0] : docs, multi: docs.length !== 1, errors: 0 };
    }
    case "toml":
      return { v: toml.parse(text), errors: 0 };
  }
  throw new Error("unknown kind " + kind);
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const req = JSON.parse(line);
  const text = Buffer.from(req.src, "base64").toString("utf8");
  let ans;
  try {
    const r = parse(req.kind, text);
    const nodes = [];
    // undefined or an empty (null) document: nothing read
    const docs = (r.multi ? r.v : [r.v]).filter((d) => d !== undefined && !(req.kind === "yaml" && d === null));
    docs.forEach((d) => flatten(d, "", nodes));
    ans = { ok: true, errors: r.errors, nodes };
  } catch (e) {
    ans = { ok: false, errors: 1, nodes: [], msg: String(e && e.message).slice(0, 200) };
  }
  process.stdout.write(JSON.stringify(ans) + "\n");
});
