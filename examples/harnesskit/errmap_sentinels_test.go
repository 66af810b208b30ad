package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/store"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/harnesskit/harnesskit/wfs"
)

// sentinels is every exported sentinel error of every package, with the channel it must go
// to (DESIGN §4.1). TestEverySentinelIsMapped finds the sentinels in the packages' source, so
// a new one that is missing here fails the test instead of falling into the default.
var sentinels = map[string]struct {
	err  error
	want errorChannel
}{
	"patch.ErrInvalid":            {patch.ErrInvalid, toolError},
	"patch.ErrEmpty":              {patch.ErrEmpty, toolError},
	"patch.ErrBlocked":            {patch.ErrBlocked, toolError},
	"patch.ErrMissingFile":        {patch.ErrMissingFile, toolError},
	"patch.ErrExists":             {patch.ErrExists, toolError},
	"patch.ErrPathConflict":       {patch.ErrPathConflict, toolError},
	"patch.ErrNotFound":           {patch.ErrNotFound, toolError},
	"patch.ErrAmbiguous":          {patch.ErrAmbiguous, toolError},
	"patch.ErrOverlap":            {patch.ErrOverlap, toolError},
	"patch.ErrChanged":            {patch.ErrChanged, toolError},
	"patch.ErrAlreadyApplied":     {patch.ErrAlreadyApplied, toolError},
	"patch.ErrTooLarge":           {patch.ErrTooLarge, toolError},
	"patch.ErrBusy":               {patch.ErrBusy, toolError},
	"patch.ErrReadOnly":           {patch.ErrReadOnly, toolError},
	"patch.ErrIO":                 {patch.ErrIO, hostError},
	"patch.ErrImplicitInvocation": {patch.ErrImplicitInvocation, toolError},
	"patch.ErrNotPatchCommand":    {patch.ErrNotPatchCommand, toolError},

	"pathguard.ErrMissing":      {pathguard.ErrMissing, toolError},
	"pathguard.ErrNotDirectory": {pathguard.ErrNotDirectory, toolError},
	"pathguard.ErrOutside":      {pathguard.ErrOutside, toolError},
	"pathguard.ErrResolve":      {pathguard.ErrResolve, toolError},

	"astsearch.ErrBadPattern":      {astsearch.ErrBadPattern, toolError},
	"astsearch.ErrUnknownLang":     {astsearch.ErrUnknownLang, toolError},
	"astsearch.ErrLangUnavailable": {astsearch.ErrLangUnavailable, toolError},
	"astsearch.ErrBlocked":         {astsearch.ErrBlocked, toolError},
	"astsearch.ErrConflict":        {astsearch.ErrConflict, toolError},
	"astsearch.ErrUnavailable":     {astsearch.ErrUnavailable, hostError},
	"astsearch.ErrBackend":         {astsearch.ErrBackend, hostError},

	"loopguard.ErrRefused":       {loopguard.ErrRefused, toolError},
	"loopguard.ErrInvalidOption": {loopguard.ErrInvalidOption, hostError},
	"loopguard.ErrInvalidCall":   {loopguard.ErrInvalidCall, hostError},

	"taskboard.ErrInvalidArgs":      {taskboard.ErrInvalidArgs, toolError},
	"taskboard.ErrNotOrchestrator":  {taskboard.ErrNotOrchestrator, toolError},
	"taskboard.ErrUnmanaged":        {taskboard.ErrUnmanaged, hostError},
	"taskboard.ErrUnknownTask":      {taskboard.ErrUnknownTask, toolError},
	"taskboard.ErrForeignTask":      {taskboard.ErrForeignTask, toolError},
	"taskboard.ErrNotRunning":       {taskboard.ErrNotRunning, toolError},
	"taskboard.ErrLeaseUnavailable": {taskboard.ErrLeaseUnavailable, toolError},
	"taskboard.ErrStale":            {taskboard.ErrStale, toolError},
	"taskboard.ErrTimeout":          {taskboard.ErrTimeout, toolError},
	"taskboard.ErrUnconfirmed":      {taskboard.ErrUnconfirmed, toolError},
	"taskboard.ErrHost":             {taskboard.ErrHost, hostError},
	"taskboard.ErrCapability":       {taskboard.ErrCapability, toolError},
	"taskboard.ErrNotRevivable":     {taskboard.ErrNotRevivable, toolError},
	"taskboard.ErrBusyAtHost":       {taskboard.ErrBusyAtHost, toolError},
	"taskboard.ErrUnsettled":        {taskboard.ErrUnsettled, toolError},
	"taskboard.ErrNoResult":         {taskboard.ErrNoResult, toolError},
	"taskboard.ErrTaskFailed":       {taskboard.ErrTaskFailed, toolError},
	"taskboard.ErrDuplicate":        {taskboard.ErrDuplicate, toolError},
	"taskboard.ErrRefused":          {taskboard.ErrRefused, toolError},
	"taskboard.ErrClosed":           {taskboard.ErrClosed, hostError},
	"taskboard.ErrLeaseHeld":        {taskboard.ErrLeaseHeld, toolError},
	"taskboard.ErrStaleLease":       {taskboard.ErrStaleLease, toolError},
	"taskboard.ErrTombstoned":       {taskboard.ErrTombstoned, toolError},
	"taskboard.ErrExists":           {taskboard.ErrExists, toolError},
	"taskboard/store.ErrUncertain":  {store.ErrUncertain, hostError},

	"webfetch.ErrInvalidURL":       {webfetch.ErrInvalidURL, toolError},
	"webfetch.ErrInvalidRequest":   {webfetch.ErrInvalidRequest, toolError},
	"webfetch.ErrPermissionDenied": {webfetch.ErrPermissionDenied, toolError},
	"webfetch.ErrBlocked":          {webfetch.ErrBlocked, toolError},
	"webfetch.ErrTimeout":          {webfetch.ErrTimeout, toolError},
	"webfetch.ErrTooManyRedirects": {webfetch.ErrTooManyRedirects, toolError},
	"webfetch.ErrMissingLocation":  {webfetch.ErrMissingLocation, toolError},
	"webfetch.ErrStatus":           {webfetch.ErrStatus, toolError},
	"webfetch.ErrTransport":        {webfetch.ErrTransport, toolError},
	"webfetch.ErrFilename":         {webfetch.ErrFilename, hostError},
	"webfetch.ErrClosed":           {webfetch.ErrClosed, hostError},

	"format.ErrFormatter":        {format.ErrFormatter, toolError},
	"format.ErrTimeout":          {format.ErrTimeout, toolError},
	"format.ErrNotRunnable":      {format.ErrNotRunnable, hostError},
	"format.ErrSyntax":           {format.ErrSyntax, toolError},
	"format.ErrConcurrentChange": {format.ErrConcurrentChange, toolError},
	"format.ErrConfig":           {format.ErrConfig, hostError},
	"format.ErrOutside":          {format.ErrOutside, toolError},
	"format.ErrIO":               {format.ErrIO, hostError},

	"wfs.ErrChanged":  {wfs.ErrChanged, toolError},
	"wfs.ErrBusy":     {wfs.ErrBusy, toolError},
	"wfs.ErrTooLarge": {wfs.ErrTooLarge, toolError},
	"wfs.ErrReadOnly": {wfs.ErrReadOnly, toolError},
	"wfs.ErrSpecial":  {wfs.ErrSpecial, toolError},
	"wfs.ErrInUse":    {wfs.ErrInUse, toolError},
	"wfs.ErrOutside":  {wfs.ErrOutside, toolError},
	"wfs.ErrLocked":   {wfs.ErrLocked, hostError},
	"wfs.ErrKey":      {wfs.ErrKey, hostError},
	"wfs.ErrNotAbs":   {wfs.ErrNotAbs, hostError},
}

// TestEverySentinelIsMapped reads the exported package-level variables named Err… in the
// non-test source of every package and checks that each one is in the table above, and that
// the table has nothing the packages no longer export.
func TestEverySentinelIsMapped(t *testing.T) {
	found := map[string]bool{}
	for _, pkg := range []string{"patch", "pathguard", "loopguard", "taskboard", "taskboard/store", "webfetch", "astsearch", "format", "wfs"} {
		for _, name := range exportedErrVars(t, filepath.Join("..", "..", pkg)) {
			found[pkg+"."+name] = true
		}
	}
	var missing, stale []string
	for name := range found {
		if _, ok := sentinels[name]; !ok {
			missing = append(missing, name)
		}
	}
	for name := range sentinels {
		if !found[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("sentinels not in the channel table (add them to sentinels, and to toolErrors() if the model can act on them): %v", missing)
	}
	if len(stale) > 0 {
		t.Errorf("table entries the packages no longer export: %v", stale)
	}
	if len(found) < 40 {
		t.Errorf("found only %d sentinels: the source scan is broken", len(found))
	}
}

// TestSentinelChannels checks that classify sends each sentinel, bare and wrapped, to its
// channel, and that cancellation stays a host error even when wrapped with a tool sentinel.
func TestSentinelChannels(t *testing.T) {
	for name, s := range sentinels {
		t.Run(name, func(t *testing.T) {
			if got := classify(s.err); got != s.want {
				t.Errorf("classify(%s) = %v, want %v", name, got, s.want)
			}
			if got := classify(fmt.Errorf("context: %w", s.err)); got != s.want {
				t.Errorf("classify(wrapped %s) = %v, want %v", name, got, s.want)
			}
			if got := classify(errors.Join(s.err, context.Canceled)); got != hostError {
				t.Errorf("classify(%s joined with context.Canceled) = %v, want hostError", name, got)
			}
		})
	}
	if got := classify(fmt.Errorf("open x: %w", fs.ErrNotExist)); got != toolError {
		t.Errorf("fs.ErrNotExist on a path the model named should be a tool error, got %v", got)
	}
	if got := classify(errors.New("unmapped")); got != hostError {
		t.Errorf("an unmapped error should be a host error, got %v", got)
	}
}

func exportedErrVars(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", e.Name(), err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(id.Name, "Err") && id.IsExported() {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}
