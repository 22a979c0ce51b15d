"""Writes cpython-gecko.json: a profile laid out exactly as CPython 3.15's
`python -m profiling.sampling --gecko` writes it (Lib/profiling/sampling/gecko_collector.py, read at
python/cpython@115a524b: processed format 57, per-thread tables, shared.stringArray starting with
"(root)", interval markers), for samples of two threads made up here. Own code; no CPython code."""
import json

strings, index = ["(root)"], {"(root)": 0}
def s(x):
    if x not in index:
        index[x] = len(strings); strings.append(x)
    return index[x]

def thread(tid, main, samples):
    t = {"name": f"Thread-{tid}", "isMainThread": main, "processStartupTime": 0, "processShutdownTime": None,
         "registerTime": 0, "unregisterTime": None, "pausedRanges": [], "pid": "4242", "tid": tid,
         "processType": "default", "processName": "Python Process",
         "samples": {"stack": [], "time": [], "eventDelay": [], "weight": None, "weightType": "samples", "length": 0},
         "stackTable": {"frame": [], "category": [], "subcategory": [], "prefix": [], "length": 0},
         "frameTable": {k: [] for k in ["address", "category", "subcategory", "func", "innerWindowID", "implementation",
                                         "optimizations", "line", "column", "inlineDepth", "nativeSymbol"]},
         "funcTable": {k: [] for k in ["name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber"]},
         "resourceTable": {"lib": [], "name": [], "host": [], "type": [], "length": 0},
         "nativeSymbols": {"libIndex": [], "address": [], "name": [], "functionSize": [], "length": 0},
         "markers": {"data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": [], "length": 0}}
    funcs, frames, stacks, resources = {}, {}, {}, {}
    for time, stack in samples:                       # stack: leaf first, (filename, (line, endline, col, endcol), func)
        prefix = None
        for filename, (line, _, col, _), func in reversed(stack):
            py = not filename.startswith("<") or filename in ("<stdin>", "<string>")
            if (filename, func) not in funcs:
                ft = t["funcTable"]; funcs[(filename, func)] = len(ft["name"])
                if filename not in resources:
                    rt = t["resourceTable"]; resources[filename] = len(rt["name"])
                    rt["lib"].append(None); rt["name"].append(s(filename.rsplit("/", 1)[-1])); rt["host"].append(None); rt["type"].append(1)
                ft["name"].append(s(func)); ft["isJS"].append(py); ft["relevantForJS"].append(py)
                ft["resource"].append(resources[filename])
                ft["fileName"].append(s(filename.rsplit("/", 1)[-1]) if py else None)
                ft["lineNumber"].append(line if py else None); ft["columnNumber"].append(None)
            fi = funcs[(filename, func)]
            key = (fi, line, col if col >= 0 else None)
            if key not in frames:
                fr = t["frameTable"]; frames[key] = len(fr["func"])
                for k, v in [("address", -1), ("inlineDepth", 0), ("category", 1 if py else 2), ("subcategory", 0),
                             ("func", fi), ("nativeSymbol", None), ("innerWindowID", None), ("implementation", None),
                             ("line", line or None), ("column", col if col >= 0 else None), ("optimizations", None)]:
                    fr[k].append(v)
            sk = (frames[key], prefix)
            if sk not in stacks:
                st = t["stackTable"]; stacks[sk] = len(st["frame"])
                st["frame"].append(frames[key]); st["prefix"].append(prefix); st["category"].append(1 if py else 2); st["subcategory"].append(0)
            prefix = stacks[sk]
        t["samples"]["stack"].append(prefix); t["samples"]["time"].append(time); t["samples"]["eventDelay"].append(None)
    for name, a, b in [("Has GIL", 0.0, samples[-1][0]), ("On CPU", 0.0, samples[-1][0])]:
        m = t["markers"]; m["name"].append(s(name)); m["startTime"].append(a); m["endTime"].append(b)
        m["phase"].append(1); m["category"].append(4); m["data"].append({"type": name.replace(" ", ""), "duration": b - a, "tid": tid})
    for table, col in [("samples", "stack"), ("stackTable", "frame"), ("frameTable", "func"), ("funcTable", "name"), ("markers", "name")]:
        t[table]["length"] = len(t[table][col])
    return t

main = ("/app/main.py", (40, 40, 4, 12), "main")
work = ("/app/work.py", (10, 10, 8, 20), "compute")
inner = ("/app/work.py", (22, 22, 12, 30), "inner \"quoted\" ünï")
gc = ("~", (0, 0, -1, -1), "<GC>")
native = ("<native>", (0, 0, -1, -1), "time.sleep")
t1 = thread(4242, True, [(0.0, [work, main]), (1.02, [inner, work, main]), (2.05, [inner, work, main]),
                         (3.01, [gc, work, main]), (4.1, [main])])
t2 = thread(4243, False, [(0.51, [native, ("/app/pool.py", (7, 7, 4, 9), "worker")]),
                          (1.53, [native, ("/app/pool.py", (7, 7, 4, 9), "worker")])])
categories = [{"name": n, "color": c, "subcategories": ["Other"]} for n, c in
              [("Other", "grey"), ("Python", "yellow"), ("Native", "blue"), ("GC", "orange"), ("GIL", "green"),
               ("CPU", "purple"), ("Code Type", "red"), ("Opcodes", "magenta"), ("Exception", "lightblue")]]
profile = {"meta": {"interval": 0.82, "startTime": 1732520000000.5, "abi": "x86_64", "misc": "Python profiler",
                    "oscpu": "x86_64", "platform": "Linux", "processType": 0, "categories": categories, "stackwalk": 0,
                    "toolkit": "", "version": 32, "preprocessedProfileVersion": 57, "appBuildID": "", "physicalCPUs": 2,
                    "logicalCPUs": 2, "CPUName": "", "product": "Python", "symbolicated": True, "markerSchema": [],
                    "importedFrom": "Tachyon Sampling Profiler", "extensions": {"id": [], "name": [], "baseURL": [], "length": 0}},
           "libs": [], "threads": [t1, t2], "pages": [],
           "shared": {"stringArray": strings, "sources": {"length": 0, "uuid": [], "filename": []}}}
with open("cpython-gecko.json", "w") as f:
    json.dump(profile, f, separators=(",", ":"))
