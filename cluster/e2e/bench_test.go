package e2e

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// BenchmarkSharedStep measures one task_message through a shared driver on etcd (its
// steps: take the lease, dispatch, settle: three commits) with 1 and 3 members, and
// reports the p50 and p99 latency of one call and of one step.
func BenchmarkSharedStep(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			ec := startEtcdB(b, n)
			fake := taskboardtest.New(taskboard.FlavorV2, nil)
			hs := startHostsB(b, ec, fake)
			d := hs[0].d
			if _, err := launchB(d, fake, "ses_b"); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				if _, err := d.Message(context.Background(), orch, "exp-1", "note"); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(p(0.5), "p50-ms/call")
			b.ReportMetric(p(0.99), "p99-ms/call")
			b.ReportMetric(p(0.5)/3, "p50-ms/step")
		})
	}
}
