#!/usr/bin/env python3
"""The crate's public API as text, one item per line, from rustdoc's JSON output.

    python3 .ci/public_api.py target/doc/einrow.json > api.txt

Walks the public modules from the crate root (re-exports included) and writes every item a
caller can name: modules, types with their public fields and variants, functions and methods
with their signatures, trait implementations (derived or written), constants and macros.
Auto traits and blanket implementations are left out. `.ci/public_api` compares the result
with `tests/data/public-api.txt`, so that a change to the surface is a visible diff.
"""

import json
import sys


class Api:
    def __init__(self, doc):
        self.index = doc["index"]
        self.root = doc["root"]
        self.lines = set()
        self.seen = set()
        self.exposed = {}
        self.home = None

    def item(self, i):
        return self.index.get(str(i))

    # Types, as Rust writes them.

    def ty(self, t):
        if t is None:
            return "()"
        if isinstance(t, str):
            return "_" if t == "infer" else t
        kind, v = next(iter(t.items()))
        if kind == "resolved_path":
            return v["path"] + self.args(v.get("args"))
        if kind in ("generic", "primitive"):
            return v
        if kind == "borrowed_ref":
            life = f"{v['lifetime']} " if v.get("lifetime") else ""
            return f"&{life}{'mut ' if v['is_mutable'] else ''}{self.ty(v['type'])}"
        if kind == "raw_pointer":
            return f"*{'mut' if v['is_mutable'] else 'const'} {self.ty(v['type'])}"
        if kind == "slice":
            return f"[{self.ty(v)}]"
        if kind == "array":
            return f"[{self.ty(v['type'])}; {v['len']}]"
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "dyn_trait":
            traits = [self.poly(p) for p in v["traits"]]
            if v.get("lifetime"):
                traits.append(v["lifetime"])
            return "dyn " + " + ".join(traits)
        if kind == "qualified_path":
            trait = self.ty({"resolved_path": v["trait"]}) if v.get("trait") else ""
            self_ty = self.ty(v["self_type"])
            return f"<{self_ty} as {trait}>::{v['name']}" if trait else f"{self_ty}::{v['name']}"
        if kind == "function_pointer":
            sig = v["sig"]
            ins = ", ".join(self.ty(x) for _, x in sig["inputs"])
            out = f" -> {self.ty(sig['output'])}" if sig.get("output") else ""
            return f"fn({ins}){out}"
        return json.dumps(t, sort_keys=True)

    def args(self, a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            ab = a["angle_bracketed"]
            parts = [self.arg(x) for x in ab.get("args", [])]
            for c in ab.get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding:
                    parts.append(f"{c['name']} = {self.term(binding['equality'])}")
                else:
                    bounds = " + ".join(self.bound(b) for b in binding.get("constraint", []))
                    parts.append(f"{c['name']}: {bounds}")
            return f"<{', '.join(parts)}>" if parts else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            out = f" -> {self.ty(p['output'])}" if p.get("output") else ""
            return "(" + ", ".join(self.ty(x) for x in p["inputs"]) + ")" + out
        return ""

    def arg(self, x):
        if "type" in x:
            return self.ty(x["type"])
        if "lifetime" in x:
            return x["lifetime"]
        if "const" in x:
            return x["const"].get("expr", "_")
        return "_"

    def term(self, t):
        return self.ty(t["type"]) if "type" in t else str(t.get("constant", "_"))

    def poly(self, p):
        return self.ty({"resolved_path": p["trait"]})

    def bound(self, b):
        if "trait_bound" in b:
            tb = b["trait_bound"]
            modifier = "?" if tb.get("modifier") == "maybe" else ""
            return modifier + self.ty({"resolved_path": tb["trait"]})
        if "outlives" in b:
            return b["outlives"]
        return "use<..>"

    def generics(self, g):
        params = []
        for p in g.get("params", []):
            kind = p["kind"]
            if "lifetime" in kind:
                params.append(p["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                bounds = " + ".join(self.bound(b) for b in kind["type"].get("bounds", []))
                params.append(p["name"] + (f": {bounds}" if bounds else ""))
            elif "const" in kind:
                params.append(f"const {p['name']}: {self.ty(kind['const']['type'])}")
        return f"<{', '.join(params)}>" if params else ""

    def where(self, g):
        preds = []
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                bp = w["bound_predicate"]
                bounds = " + ".join(self.bound(b) for b in bp["bounds"])
                preds.append(f"{self.ty(bp['type'])}: {bounds}")
        return f" where {', '.join(preds)}" if preds else ""

    def signature(self, name, f):
        sig = f["sig"]
        ins = []
        for arg, t in sig["inputs"]:
            if arg == "self":
                ins.append(self.self_arg(t))
            else:
                ins.append(f"{arg}: {self.ty(t)}")
        out = f" -> {self.ty(sig['output'])}" if sig.get("output") else ""
        header = f.get("header", {})
        prefix = ("const " if header.get("is_const") else "") + (
            "unsafe " if header.get("is_unsafe") else ""
        )
        gen = self.generics(f["generics"])
        return f"{prefix}fn {name}{gen}({', '.join(ins)}){out}{self.where(f['generics'])}"

    def self_arg(self, t):
        if t == {"generic": "Self"}:
            return "self"
        if isinstance(t, dict) and "borrowed_ref" in t and t["borrowed_ref"]["type"] == {
            "generic": "Self"
        }:
            r = t["borrowed_ref"]
            life = f"{r['lifetime']} " if r.get("lifetime") else ""
            return f"&{life}{'mut ' if r['is_mutable'] else ''}self"
        return f"self: {self.ty(t)}"

    # The walk.

    def add(self, line):
        self.lines.add(line)

    def marks(self, it):
        return " #[non_exhaustive]" if "non_exhaustive" in json.dumps(it["attrs"]) else ""

    def module(self, path, mid):
        key = (path, mid)
        if key in self.seen:
            return
        self.seen.add(key)
        m = self.item(mid)
        for i in m["inner"]["module"]["items"]:
            self.member(path, i)

    def settle(self):
        def rank(p):
            return ("::prelude::" in p, p.count("::"), p)

        self.home = {i: min(paths, key=rank) for i, paths in self.exposed.items()}
        self.lines = set()
        self.seen = set()

    def member(self, path, i, rename=None):
        it = self.item(i)
        if it is None:
            return
        kind, v = next(iter(it["inner"].items()))
        name = rename or it.get("name")
        if kind == "use":
            self.reexport(path, v)
            return
        here = f"{path}::{name}"
        if self.home is None:
            self.exposed.setdefault(i, []).append(here)
        elif kind != "module" and self.home.get(i, here) != here:
            self.add(f"pub use {here} = {self.home[i]}")
            return
        if kind == "module":
            self.add(f"mod {here}")
            self.module(here, i)
        elif kind == "function":
            self.add(f"{self.signature(here, v)}")
        elif kind == "struct":
            self.add(f"struct {here}{self.generics(v['generics'])}{self.marks(it)}")
            self.fields(here, v["kind"])
            self.impls(here, v["impls"])
        elif kind == "enum":
            self.add(f"enum {here}{self.generics(v['generics'])}{self.marks(it)}")
            for var in v["variants"]:
                self.variant(here, var)
            self.impls(here, v["impls"])
        elif kind == "trait":
            self.add(f"trait {here}{self.generics(v['generics'])}")
            for t in v["items"]:
                self.assoc(here, t)
            self.implementations(here, v.get("implementations", []))
        elif kind == "constant":
            self.add(f"const {here}: {self.ty(v['type'])}")
        elif kind == "static":
            self.add(f"static {here}: {self.ty(v['type'])}")
        elif kind == "type_alias":
            self.add(f"type {here}{self.generics(v['generics'])} = {self.ty(v['type'])}")
        elif kind == "macro":
            self.add(f"macro {name}!")
        else:
            self.add(f"{kind} {here}")

    def collect_direct(self, mid):
        """The ids of items defined in public modules (not only re-exported), by module."""
        stack, seen = [mid], set()
        while stack:
            m = stack.pop()
            if m in seen:
                continue
            seen.add(m)
            for i in self.item(m)["inner"]["module"]["items"]:
                it = self.item(i)
                if it is None or "use" in it["inner"]:
                    continue
                self.direct.add(i)
                if "module" in it["inner"]:
                    stack.append(i)

    def reexport(self, path, use):
        target = use.get("id")
        it = self.item(target) if target is not None else None
        if it is None:
            self.add(f"pub use {path}::{use['name']} = {use['source']}")
            return

        if use["is_glob"]:
            kind = next(iter(it["inner"]))
            if kind == "module":
                for i in it["inner"]["module"]["items"]:
                    self.member(path, i)
            return
        self.member(path, target, rename=use["name"])

    def fields(self, here, kind):
        if kind == "unit":
            return
        if "plain" in kind:
            for f in kind["plain"]["fields"]:
                fi = self.item(f)
                if fi is not None:
                    self.add(f"field {here}.{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            if kind["plain"].get("has_stripped_fields"):
                self.add(f"field {here}.<private>")
        elif "tuple" in kind:
            for k, f in enumerate(kind["tuple"]):
                fi = self.item(f) if f is not None else None
                if fi is not None:
                    self.add(f"field {here}.{k}: {self.ty(fi['inner']['struct_field'])}")

    def variant(self, here, var):
        vi = self.item(var)
        kind = vi["inner"]["variant"]["kind"]
        name = f"{here}::{vi['name']}"
        if kind == "plain":
            self.add(f"variant {name}")
            return
        if "tuple" in kind:
            tys = [self.ty(self.item(f)["inner"]["struct_field"]) for f in kind["tuple"] if f is not None]
            self.add(f"variant {name}({', '.join(tys)})")
            return
        fields = []
        for f in kind["struct"]["fields"]:
            fi = self.item(f)
            fields.append(f"{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
        self.add(f"variant {name} {{ {', '.join(fields)} }}")

    def impls(self, here, ids):
        for i in ids:
            it = self.item(i)
            if it is None:
                continue
            imp = it["inner"]["impl"]
            if imp.get("is_synthetic") or imp.get("blanket_impl") is not None:
                continue
            if imp.get("trait") is None:
                for m in imp["items"]:
                    self.assoc(here, m)
                continue
            if self.item(imp["trait"]["id"]) is not None:
                continue  # listed with the crate's own trait
            neg = "!" if imp.get("is_negative") else ""
            trait = self.ty({"resolved_path": imp["trait"]})
            gen = self.generics(imp["generics"])
            self.add(f"impl {here}: {neg}{trait}{gen and ' ' + gen}")

    def implementations(self, here, ids):
        for i in ids:
            it = self.item(i)
            imp = it["inner"]["impl"] if it is not None else None
            if imp is None or imp.get("is_synthetic") or imp.get("blanket_impl") is not None:
                continue
            trait = self.ty({"resolved_path": imp["trait"]})
            gen = self.generics(imp["generics"])
            self.add(f"impl{gen} {here} ({trait}) for {self.ty(imp['for'])}")

    def assoc(self, here, i):
        it = self.item(i)
        if it is None:
            return
        kind, v = next(iter(it["inner"].items()))
        name = f"{here}::{it['name']}"
        if kind == "function":
            self.add(self.signature(name, v))
        elif kind == "assoc_const":
            self.add(f"const {name}: {self.ty(v['type'])}")
        elif kind == "assoc_type":
            self.add(f"type {name}")


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    api = Api(doc)
    root = api.item(doc["root"])
    # Two walks: the first finds every path an item is reachable by and picks its home (the
    # shortest outside the prelude); the second lists it there, and elsewhere as one line.
    api.module(root["name"], doc["root"])
    api.settle()
    api.module(root["name"], doc["root"])
    for line in sorted(api.lines):
        print(line)


if __name__ == "__main__":
    main()
