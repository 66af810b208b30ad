package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
)

//go:embed descriptions/apply_patch.md
var applyPatchDescription string

type applyPatchArgs struct {
	PatchText string `json:"patchText" jsonschema:"the whole patch, from *** Begin Patch to *** End Patch"`
}

func newApplyPatch(b *Toolbox, _ *config) (*Tool, error) {
	fsys, err := patch.NewOSFS(b.bases...)
	if err != nil {
		return nil, fmt.Errorf("tools: apply_patch: %w", err)
	}
	a, err := patch.New(fsys, b.root, patch.WithWorktrees(b.bases[1:]...), patch.WithContainment(b.contain))
	if err != nil {
		fsys.Close()
		return nil, fmt.Errorf("tools: apply_patch: %w", err)
	}
	b.closers = append(b.closers, fsys.Close)
	return makeTool("apply_patch", applyPatchDescription, Annotations{Destructive: true}, nil,
		func(ctx context.Context, in *applyPatchArgs, _ Progress) (string, error) {
			if in.PatchText == "" {
				return "", invalidf("apply_patch: patchText is empty; send the whole patch, from *** Begin Patch to *** End Patch")
			}
			res, err := a.Apply(ctx, in.PatchText)
			if err != nil {
				return "", err
			}
			return res.Summary, nil
		})
}
