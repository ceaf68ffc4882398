package telemetry

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// samplerFromEnv is the sampler OTEL_TRACES_SAMPLER names, with
// OTEL_TRACES_SAMPLER_ARG its ratio (the OTel SDK environment variables
// specification; the SDK's own samplers). Unset, it is
// parentbased_always_on, the specification's default. The SDK reads these
// from the process environment when it makes a provider; the gateway's
// sampler runs where its spans start (Tracer), so it reads them here,
// from getenv, and a sampler the gateway does not know (jaeger_remote,
// xray), or an argument that is not a ratio from 0 to 1, is an error
// naming the variable, not a silent default.
func samplerFromEnv(getenv func(string) string) (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	ratio := func() (sdktrace.Sampler, error) {
		arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1), nil
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%s: the %s sampler takes a ratio from 0 to 1", arg, name)
		}
		return sdktrace.TraceIDRatioBased(v), nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return ratio()
	case "parentbased_traceidratio":
		s, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.ParentBased(s), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%s: the gateway samples with always_on, always_off, traceidratio, or their parentbased_ forms", name)
}
