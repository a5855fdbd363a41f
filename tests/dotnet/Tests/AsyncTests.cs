// Plan.RunAsync: it returns while its run goes on, and the plan refuses a second run meanwhile; a
// CancellationToken cancelled mid-run stops the run
// through mb_cancel and the task completes with the partial result; one cancelled before the run
// stops it at once; a plan that cannot run faults the task with MicrobenchException.
using Microbench;
using Xunit;

namespace Microbench.Tests;

public sealed class AsyncTests(ServerFixture fixture) : DeDeTest, IClassFixture<ServerFixture>
{
    [Fact]
    public async Task RunAsyncReturnsAtOnceAndOneRunAtATime()
    {
        using var plan = new Plan(fixture.Server.Url("/delay/5")) { Requests = 60, Concurrency = 2 };  // 30 rounds of 5 ms
        var running = plan.RunAsync();
        Check("RunAsync returns while its run goes on:", !running.IsCompleted);
        var second = Assert.Throws<InvalidOperationException>(() => plan.Run());
        Check("a second run of the same plan meanwhile is refused:", second.Message.Contains("already running"), second.Message);
        var r = await running;
        Check("RunAsync:", r.Completed == 60 && r.Failed == 0 && !r.Cancelled, $"{r.Completed} completed");
        r = plan.Run();  // and once it is done, the plan runs again
        Check("the plan runs again:", r.Completed == 60, $"{r.Completed} completed");
    }

    [Fact]
    public async Task ACancellationTokenStopsTheRunAndGivesThePartialResult()
    {
        ulong before = fixture.Server.Requests;
        using var plan = new Plan(fixture.Server.Url("/delay/50")) { Requests = 100000, Concurrency = 4 };
        using var source = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));
        var r = await plan.RunAsync(source.Token);
        Check("cancelled mid-run:", r.Cancelled && r.Ended + r.Unfinished < 100000 && r.Ended > 0 && r.Failed == 0,
              $"cancelled {r.Cancelled}, {r.Ended} ended, {r.Unfinished} unfinished");
        Check("every request counted once:", r.Completed == r.Ended && fixture.Server.Requests - before >= r.Completed,
              $"{r.Completed} completed, server answered {fixture.Server.Requests - before}");
        var early = await plan.RunAsync(new CancellationToken(canceled: true));
        Check("a token cancelled before the run:", early.Cancelled && early.Completed == 0, $"{early.Completed} completed");
    }

    [Fact]
    public async Task APlanThatCannotRunFaultsTheTask()
    {
        using var plan = new Plan(fixture.Server.Url("/")) { Requests = 5, Concurrency = 10 };
        var e = await Assert.ThrowsAsync<MicrobenchException>(() => plan.RunAsync());
        Assert.Equal("plan_concurrency_above_requests", e.Name);
    }
}
