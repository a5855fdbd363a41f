// The C# binding's capacity search, under de-DE: one server thread held 20 ms a request (/work)
// answers at most 50 a second, and Plan.FindCapacity, from 20/s, finds that knee within 10 %; each
// step's verdict follows from its figures and OnStep sees every step; a throwing OnStep stops the
// search and comes out of it; an objective without a p99 is refused by name; where nothing listens
// the one step's verdict is NoConnection.
using Microbench;
using Xunit;

namespace Microbench.Tests;

public sealed class CapacityTests(ServerFixture fixture) : DeDeTest, IClassFixture<ServerFixture>
{
    private static CapacityObjective Quick(double maxP99Ms) => new()
    {
        MaxP99Ms = maxP99Ms, StartRate = 20, Warmup = TimeSpan.FromMilliseconds(300), Step = TimeSpan.FromSeconds(1), MinResponses = 20,
        Cooldown = TimeSpan.FromMilliseconds(300), MaxSteps = 12,
    };

    [Fact]
    public void FindsTheKneeOfAServerOfFiftyASecond()
    {
        using var one = new Server(threads: 1);
        using var plan = new Plan(one.Url("/work?us=20000")) { Concurrency = 20, KeepAlive = true };
        var seen = new List<CapacityStep>();
        var objective = Quick(200);
        objective.OnStep = seen.Add;
        Check("the library's defaults:", new CapacityObjective().StartRate == 100 && new CapacityObjective().MaxSteps == 30 &&
              new CapacityObjective().Warmup == TimeSpan.FromSeconds(1));
        CapacityResult r = plan.FindCapacity(objective);
        Check("the knee within 10 %:", r.Rate >= 45 && r.Rate <= 55, $"{r.Rate}");
        Check("not at the maximum, not cancelled:", !r.AtMaxRate && !r.Cancelled);
        if (r.GeneratorLimited)  // only a machine that sent the lowest failed step 20 ms late
        {
            var low = r.Steps.Where((s, i) => !s.Held && !(i + 1 < r.Steps.Count && r.Steps[i + 1].Retry)).MinBy(s => s.TargetRate)!;
            Check("the generator named for its lag only:", low.ConnectionWaits == 0 && low.LagP99Ms > 20, low.ToString());
        }
        Check("OnStep saw every step:", seen.SequenceEqual(r.Steps) && r.Steps.Count >= 4);
        Check("ended by itself:", r.Stopped == "", r.Stopped);
        Check("a failed step tried once more:", r.Steps.Select((s, i) => s.Held || s.Retry || i + 1 == r.Steps.Count ||
              (r.Steps[i + 1].Retry && r.Steps[i + 1].TargetRate == s.TargetRate)).All(ok => ok));
        int firstFailed = r.Steps.ToList().FindIndex(s => !s.Held);
        Check("it doubles from 20/s while steps hold:", firstFailed > 0 &&
              r.Steps.Take(firstFailed + 1).Select((s, i) => s.TargetRate == 20 * Math.Pow(2, i)).All(ok => ok));
        foreach (var s in r.Steps)
        {
            bool holds = s.Completed > 0 && s.Failed <= 0.01 * (s.Completed + s.Failed) && s.P99Ms <= 200 && s.AchievedRate >= 0.95 * s.TargetRate;
            Check("a verdict from the step's figures:", s.Held == holds, s.ToString());
        }
        Check("the rate found is the highest held:", r.Rate == r.Steps.Where(s => s.Held).Max(s => s.TargetRate));
        using var doc = System.Text.Json.JsonDocument.Parse(r.Json);
        var steps = doc.RootElement.GetProperty("capacity_search").GetProperty("steps");
        Check("the JSON has every step:", steps.GetArrayLength() == r.Steps.Count &&
              steps.EnumerateArray().Select(s => s.GetProperty("completed").GetUInt64()).SequenceEqual(r.Steps.Select(s => s.Completed)));
        Check("the page draws a marker per step:", r.Html.StartsWith("<!DOCTYPE html>") &&
              r.Html.Split("/s: p99 ").Length - 1 == r.Steps.Count);
        Check("the table says the rate, with a point whatever the culture:", r.Table.Contains(string.Create(System.Globalization.CultureInfo.InvariantCulture, $"Capacity: {r.Rate:F1} requests/s held")), r.Table);
    }

    [Fact]
    public void WhereNothingListensTheOneStepGetsNoConnection()
    {
        ushort port;
        using (var gone = new Server()) port = gone.Port;  // stopped: nothing listens there now
        using var plan = new Plan($"http://127.0.0.1:{port}/") { Concurrency = 2 };
        CapacityResult r = plan.FindCapacity(new CapacityObjective { MaxP99Ms = 10, Warmup = TimeSpan.Zero, Step = TimeSpan.FromMilliseconds(200), MinResponses = 1 });
        Check("one step, nothing held:", r.Steps.Count == 1 && r.Rate == 0, $"{r.Steps.Count} {r.Rate}");
        Check("its verdict:", r.Steps[0].Verdict == CapacityVerdict.NoConnection && r.Steps[0].Completed == 0 && r.Steps[0].Failed > 0,
              $"{r.Steps[0].Verdict}");
    }

    [Fact]
    public void AThrowingOnStepStopsTheSearchAndABadObjectiveIsRefused()
    {
        using var plan = new Plan(fixture.Server.Url("/factorial/10")) { Concurrency = 2, KeepAlive = true };
        var objective = Quick(100);
        int calls = 0;
        objective.OnStep = _ => { ++calls; throw new TimeoutException("stop"); };
        var thrown = Assert.Throws<TimeoutException>(() => plan.FindCapacity(objective));
        Check("the callback's own exception, after one step:", thrown.Message == "stop" && calls == 1);
        var refused = Assert.Throws<MicrobenchException>(() => plan.FindCapacity(new CapacityObjective()));
        Check("no p99 objective:", refused.Name == "plan_bad_capacity_search", refused.Name);
    }
}
