// The article's ASP.NET Core minimal API, as it was written: GET /factorial?n=10 answers n! as a
// JSON number computed in a long — which overflows for n > 20 (21! is negative here). The
// article's .WithName("GetFactorial") and .WithOpenApi() are dropped: they need NuGet packages
// (Swashbuckle / Microsoft.AspNetCore.OpenApi) that this project does not use.
// The URL comes from the environment (ASPNETCORE_URLS, e.g. http://127.0.0.1:5080); logging is
// quiet (Logging__LogLevel__Default=Warning) so the server's console stays out of the figures.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();

app.MapGet("/factorial", (int n) => {
    long Factorial(int number) { return number <= 1 ? 1 : number * Factorial(number - 1); }
    long result = Factorial(n);
    return result;
});

app.Run();
