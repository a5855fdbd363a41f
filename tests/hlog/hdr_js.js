// hdr-histogram-js (npm, HdrHistogram's TypeScript port) on both sides of an interval log:
//   node hdr_js.js read LOG    reads every row with its HistogramLogReader, merges them per tag
//   node hdr_js.js write LOG [N]  writes three 1-second intervals of two tagged histograms, N
//                              values each (20,000 unless given), with its HistogramLogWriter (pako)
// and prints a line per tag: TAG ROWS COUNT P0 P50 P90 P99 P99.9 P99.99 MAX (nanoseconds), as
// its getValueAtPercentile and maxValue give them. NODE_PATH names where the package is.
"use strict";
const hdr = require("hdr-histogram-js");
const fs = require("fs");

const layout = { lowestDiscernibleValue: 1, highestTrackableValue: 3600e9, numberOfSignificantValueDigits: 3, bitBucketSize: 64 };
const tags = new Map();
function add(h) {
  const tag = h.tag && h.tag !== "NO TAG" ? h.tag : "(none)";
  if (!tags.has(tag)) tags.set(tag, { rows: 0, total: hdr.build(layout) });
  const seen = tags.get(tag);
  seen.rows += 1;
  seen.total.add(h);
}

const [mode, path, count] = process.argv.slice(2);
if (mode === "read") {
  const reader = new hdr.HistogramLogReader(fs.readFileSync(path, "utf8"), 64);
  for (let h; (h = reader.nextIntervalHistogram()) !== null; ) add(h);
} else if (mode === "write") {
  // Values from a 64-bit LCG: 20 us to 5 ms, one in fifty 300 times that.
  const n = count ? Number(count) : 20000;
  let x = 23n;
  const mask = (1n << 64n) - 1n;
  const start = 1764669941250;
  let out = "";
  const writer = new hdr.HistogramLogWriter((text) => (out += text));
  writer.outputLogFormatVersion();
  writer.outputStartTime(start);
  writer.outputLegend();
  for (let interval = 0; interval < 3; ++interval)
    for (const tag of ["response", "service"]) {
      const h = hdr.build(layout);
      for (let i = 0; i < n; ++i) {
        x = (x * 6364136223846793005n + 1442695040888963407n) & mask;
        let v = Number((x >> 33n) % 5000000n) + 20000;
        if (Number((x >> 20n) % 50n) === 0) v *= 300;
        h.recordValue(tag === "service" ? Math.floor(v / 2) : v);
      }
      h.tag = tag;
      h.startTimeStampMsec = start + interval * 1000;
      h.endTimeStampMsec = start + (interval + 1) * 1000;
      writer.outputIntervalHistogram(h);
      add(h);
    }
  fs.writeFileSync(path, out);
} else {
  console.error("usage: node hdr_js.js read LOG | node hdr_js.js write LOG [N]");
  process.exit(2);
}
for (const tag of [...tags.keys()].sort()) {
  const { rows, total } = tags.get(tag);
  const values = [0, 50, 90, 99, 99.9, 99.99].map((p) => total.getValueAtPercentile(p));
  console.log([tag, rows, total.totalCount, ...values, total.maxValue].join(" "));
}
