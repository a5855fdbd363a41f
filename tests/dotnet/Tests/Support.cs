// What the C# tests share: every test runs under de-DE (a decimal comma must not leak into anything
// the library reads or writes), one at a time (some count what a shared server answered), with
// Check(what, ok, detail) failing the test with both; ServerFixture is the reference server a test
// class shares.
using System.Globalization;
using Xunit;

[assembly: CollectionBehavior(DisableTestParallelization = true)]

namespace Microbench.Tests;

public abstract class DeDeTest
{
    protected DeDeTest()
    {
        CultureInfo.CurrentCulture = CultureInfo.DefaultThreadCurrentCulture = new CultureInfo("de-DE");
    }

    protected static void Check(string what, bool ok, string detail = "") => Assert.True(ok, $"{what} {detail}");

    protected static string Inv(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}

public sealed class ServerFixture : IDisposable
{
    public Server Server { get; } = new(threads: 2);

    public void Dispose() => Server.Dispose();
}
