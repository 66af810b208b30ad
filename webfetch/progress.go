package webfetch

import "context"

// progressKey is the context key of ContextWithProgress.
type progressKey struct{}

// ContextWithProgress returns a context whose fetches report their body progress to fn,
// after the fetcher's own WithProgress callback. It lets an adapter that serves many
// clients from one Fetcher (and one cache) route progress to the call that asked for it.
// A nil fn returns ctx unchanged.
func ContextWithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

func progressFrom(ctx context.Context) ProgressFunc {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return fn
}

// progressFor combines the fetcher's and the call's progress callbacks.
func progressFor(all, one ProgressFunc) ProgressFunc {
	switch {
	case all == nil:
		return one
	case one == nil:
		return all
	}
	return func(url string, read, total int64) {
		all(url, read, total)
		one(url, read, total)
	}
}
