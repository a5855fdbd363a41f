#!/bin/sh
# The C# binding: builds examples/dotnet (no NuGet packages) into the build tree and runs it
# without a URL — it starts the reference server through P/Invoke and exits 0 only if exactly
# 1000 of 1000 requests completed and the server answered exactly 1000; then the open-model
# check in tests/dotnet/OpenModel (exact counts the schedule decided: Poisson arrivals sent or
# missed, a held connection's waits; rows that add up), and the binding's own checks in
# tests/dotnet/Binding (handles, URLs, plans, callbacks) — both under the de-DE culture and LC_ALL.
#   run_dotnet.sh SOURCE_DIR BUILD_DIR LIBMICROBENCH
set -eu
src=$1 out=$2 lib=$3
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
dotnet build "$src/examples/dotnet" -c Release --artifacts-path "$out" --nologo -v quiet
MICROBENCH_LIBRARY=$lib dotnet "$out/bin/Microbench/release/microbench-dotnet.dll"
dotnet build "$src/tests/dotnet/OpenModel" -c Release --artifacts-path "$out" --nologo -v quiet
# With LC_ALL set to a comma locale too, as a host may run it: what the native
# library writes must not follow it.
LC_ALL=de_DE.UTF-8 MICROBENCH_LIBRARY=$lib dotnet "$out/bin/OpenModel/release/microbench-dotnet-open-model.dll"
dotnet build "$src/tests/dotnet/Binding" -c Release --artifacts-path "$out" --nologo -v quiet
LC_ALL=de_DE.UTF-8 MICROBENCH_LIBRARY=$lib dotnet "$out/bin/Binding/release/microbench-dotnet-binding.dll"
