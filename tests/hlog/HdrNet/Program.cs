// HdrHistogram.NET, HdrHistogram's own .NET implementation, on both sides of an interval log:
//   hdr-net read LOG    reads every row with its HistogramLogReader, merges them per tag with Add
//   hdr-net write LOG [N]  writes three 1-second intervals of two tagged histograms, N values each
//                       (20,000 unless given), with its HistogramLogWriter (UTF-16, deflated)
// and prints a line per tag: TAG ROWS COUNT P0 P50 P90 P99 P99.9 P99.99 MAX, values as recorded
// (nanoseconds), as its GetValueAtPercentile and GetMaxValue give them.
using HdrHistogram;

var tags = new SortedDictionary<string, (int Rows, HistogramBase Total)>(StringComparer.Ordinal);
void Add(HistogramBase h)
{
    var tag = h.Tag ?? "(none)";
    if (tags.TryGetValue(tag, out var seen))
    {
        seen.Total.Add(h);
        tags[tag] = (seen.Rows + 1, seen.Total);
    }
    else
    {
        tags[tag] = (1, h.Copy());
    }
}

if (args.Length == 2 && args[0] == "read")
{
    using var stream = File.OpenRead(args[1]);
    using var reader = new HistogramLogReader(stream);
    foreach (var h in reader.ReadHistograms()) Add(h);
}
else if (args.Length >= 2 && args[0] == "write")
{
    // Values from a 64-bit LCG: 20 us to 5 ms, one in fifty 300 times that.
    int n = args.Length > 2 ? int.Parse(args[2]) : 20000;
    ulong x = 17;
    long start = 1764669941250;  // ms since the epoch
    var written = new List<HistogramBase>();
    for (int interval = 0; interval < 3; ++interval)
        foreach (var tag in new[] { "response", "service" })
        {
            var h = new LongHistogram(1, 3600L * 1000 * 1000 * 1000, 3);
            for (int i = 0; i < n; ++i)
            {
                x = unchecked(x * 6364136223846793005UL + 1442695040888963407UL);
                long v = (long)((x >> 33) % 5_000_000) + 20_000;
                if ((x >> 20) % 50 == 0) v *= 300;
                h.RecordValue(tag == "service" ? v / 2 : v);
            }
            h.Tag = tag;
            h.StartTimeStamp = start + interval * 1000;
            h.EndTimeStamp = start + (interval + 1) * 1000;
            written.Add(h);
            Add(h);
        }
    using var file = File.Create(args[1]);
    using var writer = new HistogramLogWriter(file);
    writer.Write(DateTimeOffset.FromUnixTimeMilliseconds(start).UtcDateTime, written.ToArray());
}
else
{
    Console.Error.WriteLine("usage: hdr-net read LOG | hdr-net write LOG [N]");
    return 2;
}

foreach (var (tag, seen) in tags)
{
    var h = seen.Total;
    var values = new[] { 0.0, 50, 90, 99, 99.9, 99.99 }.Select(p => h.GetValueAtPercentile(p).ToString());
    Console.WriteLine($"{tag} {seen.Rows} {h.TotalCount} {string.Join(" ", values)} {h.GetMaxValue()}");
}
return 0;
