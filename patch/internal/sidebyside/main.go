// Command sidebyside times several appliers on the same patch and file in one run,
// interleaved (A B A B …) so that a change in machine load hits all of them alike. Before
// every run the target file is restored from a pristine copy; after every run the result is
// compared with the expected file, so a wrong result never counts as a fast one.
//
//	go run ./patch/internal/sidebyside -src DIR -runs 30 \
//	    -cmd 'codex=apply_patch' -cmd 'harnesskit=harnesskit patch apply --root .'
//
// DIR holds file.txt, patch.txt and expected.txt (see benchgen). Each command runs with its
// own working directory containing file.txt, the patch on stdin, stdout discarded. The report
// gives, per command, the wall time (mean ± standard deviation, median, minimum) and the CPU
// time (user + system, mean) of the child process.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type cmdFlag []string

func (c *cmdFlag) String() string     { return strings.Join(*c, ", ") }
func (c *cmdFlag) Set(v string) error { *c = append(*c, v); return nil }

type contender struct {
	name string
	argv []string
	dir  string
	wall []time.Duration
	cpu  []time.Duration
}

func main() {
	src := flag.String("src", "", "directory with file.txt, patch.txt and expected.txt")
	runs := flag.Int("runs", 30, "timed runs per command")
	warmup := flag.Int("warmup", 3, "untimed runs per command first")
	var cmds cmdFlag
	flag.Var(&cmds, "cmd", "NAME=COMMAND ARGS… (repeatable; split on spaces; '.' in an argument is the command's directory)")
	flag.Parse()
	if *src == "" || len(cmds) == 0 || *runs < 2 {
		fmt.Fprintln(os.Stderr, "usage: sidebyside -src DIR [-runs N] [-warmup N] -cmd NAME=COMMAND… [-cmd …]")
		os.Exit(2)
	}
	if err := run(*src, *runs, *warmup, cmds); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func run(src string, runs, warmup int, cmds []string) error {
	file, err := os.ReadFile(filepath.Join(src, "file.txt"))
	if err != nil {
		return err
	}
	patch, err := os.ReadFile(filepath.Join(src, "patch.txt"))
	if err != nil {
		return err
	}
	expected, err := os.ReadFile(filepath.Join(src, "expected.txt"))
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "sidebyside")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var cs []*contender
	for i, c := range cmds {
		name, line, ok := strings.Cut(c, "=")
		if !ok || strings.TrimSpace(line) == "" {
			return fmt.Errorf("-cmd %q: want NAME=COMMAND", c)
		}
		dir := filepath.Join(work, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		argv := strings.Fields(line)
		for j, a := range argv {
			if a == "." {
				argv[j] = dir
			}
		}
		cs = append(cs, &contender{name: name, argv: argv, dir: dir})
	}
	once := func(c *contender) (wall, cpu time.Duration, err error) {
		target := filepath.Join(c.dir, "file.txt")
		if err := os.WriteFile(target, file, 0o644); err != nil {
			return 0, 0, err
		}
		cmd := exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Dir = c.dir
		cmd.Stdin = bytes.NewReader(patch)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err = cmd.Run()
		wall = time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %v: %s", c.name, err, stderr.String())
		}
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		got, err := os.ReadFile(target)
		if err != nil {
			return 0, 0, err
		}
		if !bytes.Equal(got, expected) {
			return 0, 0, fmt.Errorf("%s did not produce expected.txt", c.name)
		}
		return wall, cpu, nil
	}
	for range warmup {
		for _, c := range cs {
			if _, _, err := once(c); err != nil {
				return err
			}
		}
	}
	for i := range runs {
		for k := range cs {
			c := cs[(i+k)%len(cs)] // rotate the order too
			wall, cpu, err := once(c)
			if err != nil {
				return err
			}
			c.wall = append(c.wall, wall)
			c.cpu = append(c.cpu, cpu)
		}
	}
	fmt.Printf("%d runs each, interleaved; %d-byte file, %d-byte patch\n", runs, len(file), len(patch))
	for _, c := range cs {
		m, sd := stats(c.wall)
		cm, _ := stats(c.cpu)
		sorted := slices.Clone(c.wall)
		slices.Sort(sorted)
		fmt.Printf("%-12s wall %7.1f ms ± %5.1f ms  median %7.1f ms  min %7.1f ms  cpu %6.1f ms\n",
			c.name, m, sd, ms(sorted[len(sorted)/2]), ms(sorted[0]), cm)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// stats returns the mean and the sample standard deviation in milliseconds.
func stats(ds []time.Duration) (mean, sd float64) {
	for _, d := range ds {
		mean += ms(d)
	}
	mean /= float64(len(ds))
	for _, d := range ds {
		sd += (ms(d) - mean) * (ms(d) - mean)
	}
	return mean, math.Sqrt(sd / float64(len(ds)-1))
}
