package e2e

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdCluster is n etcd members embedded in the test process, on loopback ports.
type etcdCluster struct {
	members []*embed.Etcd
	clients []string // client URL of each member
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEtcd starts n members and waits until they serve (generous timeouts: the machine
// is shared).
func startEtcd(t testing.TB, n int) *etcdCluster {
	t.Helper()
	cfgs := make([]*embed.Config, n)
	var initial []string
	c := &etcdCluster{}
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = t.TempDir()
		cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
		pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.LogLevel = "error"
		cfg.InitialClusterToken = "e2e"
		initial = append(initial, fmt.Sprintf("%s=%s", cfg.Name, pu))
		c.clients = append(c.clients, cu.String())
		cfgs[i] = cfg
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	c.members = make([]*embed.Etcd, n)
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			c.members[i] = e
			select {
			case <-e.Server.ReadyNotify():
			case <-time.After(60 * time.Second):
				errs[i] = fmt.Errorf("member %s not ready after 60 s", cfg.Name)
			}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, e := range c.members {
			if e != nil {
				e.Close()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *etcdCluster) client(t testing.TB) *clientv3.Client {
	t.Helper()
	cl, err := clientv3.New(clientv3.Config{Endpoints: c.clients, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// killLeader stops the member that leads and returns its index.
func (c *etcdCluster) killLeader(t *testing.T) int {
	t.Helper()
	for i, e := range c.members {
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			e.Server.HardStop()
			e.Close()
			c.members[i] = nil
			return i
		}
	}
	t.Fatal("no leader")
	return -1
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func startEtcdB(b *testing.B, n int) *etcdCluster { return startEtcd(b, n) }
