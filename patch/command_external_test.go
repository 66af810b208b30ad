package patch_test

import (
	"errors"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestParseCommand(t *testing.T) {
	const body = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
	heredoc := func(prefix string) string { return prefix + "apply_patch <<'PATCH'\n" + body + "\nPATCH" }
	tests := []struct {
		name        string
		argv        []string
		want        *patch.Invocation // nil: expect wantErr
		wantErr     error
		wantErrText string // exact Error() text, when set
	}{
		{name: "R56_direct_apply_patch", argv: []string{"apply_patch", body}, want: &patch.Invocation{Patch: body}},
		{name: "R56_direct_applypatch", argv: []string{"applypatch", "anything"}, want: &patch.Invocation{Patch: "anything"}},
		{name: "R56_direct_with_extra_argument", argv: []string{"apply_patch", body, "x"}, wantErr: patch.ErrNotPatchCommand},
		{name: "R56_bash_lc_heredoc", argv: []string{"bash", "-lc", heredoc("")}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "R56_sh_c_full_path", argv: []string{"/bin/sh", "-c", heredoc("")}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "R56_zsh_applypatch_bare_word", argv: []string{"zsh", "-c", "applypatch <<EOF\n" + body + "\nEOF\n"}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "R56_bash_surrounding_whitespace", argv: []string{"bash", "-lc", "\n  " + heredoc("") + "\n\n"}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "R56_bash_wrong_flag", argv: []string{"bash", "-x", heredoc("")}, wantErr: patch.ErrNotPatchCommand},
		{name: "R56_pwsh_noprofile", argv: []string{"pwsh", "-NoProfile", "-Command", heredoc("")}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "R56_powershell_exe", argv: []string{`C:\Windows\powershell.exe`, "-Command", heredoc("cd src && ")}, want: &patch.Invocation{Patch: body + "\n", Workdir: "src"}},
		{name: "R56_cmd_c", argv: []string{"cmd", "/c", heredoc("")}, want: &patch.Invocation{Patch: body + "\n"}},
		{name: "E30_raw_patch_as_argv0", argv: []string{body}, wantErr: patch.ErrImplicitInvocation,
			wantErrText: `patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]`},
		{name: "E30_raw_patch_as_bash_script", argv: []string{"bash", "-lc", body}, wantErr: patch.ErrImplicitInvocation},
		{name: "E30_raw_patch_as_pwsh_script", argv: []string{"pwsh", "-Command", body}, wantErr: patch.ErrImplicitInvocation},
		{name: "E30_plain_command", argv: []string{"ls", "-la"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E30_lone_non_patch", argv: []string{"echo hi"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E30_empty_argv", argv: nil, wantErr: patch.ErrNotPatchCommand},
		{name: "E30_bash_script_not_a_patch", argv: []string{"bash", "-lc", "echo hi"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_cd_then_apply_patch", argv: []string{"bash", "-lc", heredoc("cd foo && ")}, want: &patch.Invocation{Patch: body + "\n", Workdir: "foo"}},
		{name: "E31_cd_single_quoted", argv: []string{"bash", "-lc", heredoc("cd 'foo bar' && ")}, want: &patch.Invocation{Patch: body + "\n", Workdir: "foo bar"}},
		{name: "E31_cd_double_quoted", argv: []string{"bash", "-lc", heredoc(`cd "foo bar" && `)}, want: &patch.Invocation{Patch: body + "\n", Workdir: "foo bar"}},
		{name: "E31_cd_semicolon", argv: []string{"bash", "-lc", heredoc("cd foo; ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_cd_or", argv: []string{"bash", "-lc", heredoc("cd x || ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_cd_pipe", argv: []string{"bash", "-lc", heredoc("cd x | ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_command_before_apply_patch", argv: []string{"bash", "-lc", heredoc("echo x && ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_apply_patch_with_argument", argv: []string{"bash", "-lc", "apply_patch foo <<'PATCH'\n" + body + "\nPATCH"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_two_cds", argv: []string{"bash", "-lc", heredoc("cd a && cd b && ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_cd_two_arguments", argv: []string{"bash", "-lc", heredoc("cd a b && ")}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_trailing_command_after_heredoc", argv: []string{"bash", "-lc", heredoc("") + "\n&& echo done"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_trailing_command_on_opener", argv: []string{"bash", "-lc", "apply_patch <<'PATCH' && echo done\n" + body + "\nPATCH"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_unterminated_heredoc", argv: []string{"bash", "-lc", "apply_patch <<'PATCH'\n" + body}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_mismatched_heredoc_quotes", argv: []string{"bash", "-lc", "apply_patch <<'PATCH\"\n" + body + "\nPATCH"}, wantErr: patch.ErrNotPatchCommand},
		{name: "E31_cd_expansion_in_double_quotes", argv: []string{"bash", "-lc", heredoc(`cd "$HOME" && `)}, wantErr: patch.ErrNotPatchCommand},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patch.ParseCommand(tc.argv)
			if tc.want == nil {
				if !errors.Is(err, tc.wantErr) || got != nil {
					t.Fatalf("ParseCommand() = %+v, %v; want nil, %v", got, err, tc.wantErr)
				}
				if tc.wantErrText != "" && err.Error() != tc.wantErrText {
					t.Errorf("Error() = %q, want %q", err.Error(), tc.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCommand() error = %v", err)
			}
			if *got != *tc.want {
				t.Errorf("ParseCommand() = %+v, want %+v", *got, *tc.want)
			}
			if tc.argv[0] != "applypatch" {
				if _, err := patch.Parse(got.Patch); err != nil {
					t.Errorf("extracted patch does not parse: %v", err)
				}
			}
		})
	}
}
