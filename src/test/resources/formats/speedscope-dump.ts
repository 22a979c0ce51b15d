// Prints what speedscope's own importers make of a file: per profile, its name and unit, then each
// distinct stack (root first, frames as name@file:line:col, tab-separated) with its summed self
// weight, sorted. Run from a checkout of jlfwong/speedscope (3613918) with its npm dev dependencies:
//   npx tsx speedscope-dump.ts FILE [NAME]
import * as fs from 'fs'
import * as path from 'path'
import {importFromChromeTimeline, isChromeTimeline, isChromeTimelineObject} from './src/import/chrome'
import {importFromFirefox} from './src/import/firefox'
import {CallTreeNode} from './src/lib/profile'

async function main() {
  const file = process.argv[2]
  const buffer = fs.readFileSync(file)
  const name = process.argv[3] || path.basename(file)
  // The dispatch of src/import/index.ts for these formats (its other importers need a browser's wasm)
  const parsed = JSON.parse(buffer.toString('utf8'))
  const group =
    parsed['systemHost'] && parsed['systemHost']['name'] == 'Firefox'
      ? {profiles: [importFromFirefox(parsed)]}
      : isChromeTimeline(parsed)
      ? importFromChromeTimeline(parsed, name)
      : isChromeTimelineObject(parsed)
      ? importFromChromeTimeline(parsed.traceEvents, name)
      : null
  if (!group) throw new Error('speedscope does not import ' + file + ' as a Chrome timeline or Firefox profile')
  const out: string[] = []
  for (const p of group.profiles) {
    out.push(`# profile\t${p.getName()}\t${p.getWeightUnit()}`)
    const sums = new Map<string, number>()
    const walk = (node: CallTreeNode, stack: string[]) => {
      for (const c of node.children) {
        const f = c.frame
        const s = stack.concat([`${f.name}@${f.file ?? ''}:${f.line ?? ''}:${f.col ?? ''}`])
        if (c.getSelfWeight() !== 0) sums.set(s.join('\t'), (sums.get(s.join('\t')) ?? 0) + c.getSelfWeight())
        walk(c, s)
      }
    }
    walk(p.getAppendOrderCalltreeRoot(), [])
    for (const k of [...sums.keys()].sort()) out.push(`${k}\t${sums.get(k)}`)
  }
  process.stdout.write(out.join('\n') + '\n')
}
main()
