#!/bin/sh
# The C# binding (bindings/dotnet): builds the example examples/dotnet into the build tree and runs it
# without a URL — it starts the reference server through P/Invoke and exits 0 only if exactly
# 1000 of 1000 requests completed and the server answered exactly 1000; then the binding's xunit
# tests (tests/dotnet/Tests: handles, URLs, plans, callbacks, RunAsync, the open model, logs, https)
# with `dotnet test`, under the de-DE culture and LC_ALL, their counts left in BUILD_DIR/xunit.trx
# for tools/test-all's summary. Packages come from /opt/nuget/packages, the offline folder of this
# project's machines, where it exists; else from the configured NuGet sources.
#   run_dotnet.sh SOURCE_DIR BUILD_DIR LIBMICROBENCH
set -eu
src=$1 out=$2 lib=$3
rm -f "$out/xunit.trx"  # only this run's counts
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_CLI_UI_LANGUAGE=en
dotnet build "$src/examples/dotnet" -c Release --artifacts-path "$out" --nologo -v quiet
MICROBENCH_LIBRARY=$lib dotnet "$out/bin/Example/release/microbench-dotnet.dll"
set --
[ -d /opt/nuget/packages ] && set -- --source /opt/nuget/packages
dotnet build "$src/tests/dotnet/Tests" -c Release --artifacts-path "$out" --nologo -v quiet "$@"
# With LC_ALL set to a comma locale too, as a host may run it: what the native library writes must
# not follow it.
LC_ALL=de_DE.UTF-8 MICROBENCH_LIBRARY=$lib dotnet test "$src/tests/dotnet/Tests" -c Release --artifacts-path "$out" --nologo --no-build \
    --logger "trx;LogFileName=xunit.trx" --results-directory "$out"
