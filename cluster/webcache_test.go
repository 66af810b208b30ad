package cluster_test

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/cluster"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/harnesskit/harnesskit/webfetch/cachetest"
	"github.com/redis/go-redis/v9"
)

// startRedis starts redis-server on a loopback port for the test, without persistence,
// or skips the test when redis-server is not installed.
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not found: install Debian's redis-server (.ci/run does) to run the Redis cache tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("redis-server did not start within 30 s")
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestWebCacheConformance(t *testing.T) {
	c := startRedis(t)
	var n atomic.Int64
	cachetest.Run(t, func(t *testing.T) webfetch.Cache {
		return cluster.NewWebCache(c, fmt.Sprintf("test%d:", n.Add(1)))
	})
}
