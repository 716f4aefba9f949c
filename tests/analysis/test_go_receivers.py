"""Go member calls judged by the receiver's declared type (go_scopes.py, go_types.py).

One small module per defect class once found against gopls: each asserts the uses
``find_references`` reports, with their labels, as (path, 0-based line, label).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap

Uses = set[tuple[str, int, str]]

FLAGS = {
    "go.mod": "module example.com/m\n",
    "flags/flags.go": (
        "package flags\n"
        "type FlagSet struct{ formal map[string]*Flag }\n"
        "type Flag struct{ Name string; Value Value }\n"
        "type Value interface {\n"
        "\tSet(string) error\n"
        "\tType() string\n"
        "}\n"
        "func NewFlagSet(name string) *FlagSet { return &FlagSet{} }\n"
        "func (f *FlagSet) Lookup(name string) *Flag { return f.formal[name] }\n"
        "func (f *FlagSet) Set(name, value string) error { return nil }\n"
        "func (f *FlagSet) Flags() []*Flag { return nil }\n"),
    "flags/values.go": (
        "package flags\n"
        "type boolValue bool\n"
        "func (b *boolValue) Set(s string) error { return nil }\n"
        "func (b *boolValue) Type() string { return \"bool\" }\n"
        "type notAValue struct{}\n"
        "func (n notAValue) Set(s string) error { return nil }\n"),
    "cmd/command.go": (
        "package cmd\n"
        "import flag \"example.com/m/flags\"\n"
        "type Command struct {\n"
        "\tflags *flag.FlagSet\n"
        "\tchildren []*Command\n"
        "}\n"
        "func (c *Command) Name() string { return \"\" }\n"
        "func (c *Command) Root() *Command { return c }\n"
        "func (c *Command) Commands() []*Command { return c.children }\n"
        "func (c *Command) Flags() *flag.FlagSet { return c.flags }\n"
        "func NewCommand() *Command { return &Command{} }\n"),
}


def _uses(codemap: CodeMap, symbol_id: str) -> Uses:
    refs, total = codemap.find_references(symbol_id=symbol_id)
    assert total == len(refs)
    return {(r.path, r.range.start.line, r.confidence) for r in refs}


def _map(workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
         files: dict[str, str]) -> CodeMap:
    codemap = open_map(workspace({**FLAGS, **files}))
    codemap.index()
    return codemap


def test_declared_receivers_resolve_and_other_types_are_not_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"cmd/use.go": (
        "package cmd\n"
        "import \"os\"\n"
        "func use(p *Command, n int) {\n"
        "\t_ = p.Name()\n"                                      # 3: a parameter
        "\tvar v Command\n"
        "\t_ = v.Name()\n"                                      # 5: var x T
        "\tx := NewCommand()\n"
        "\t_ = x.Name()\n"                                      # 7: a constructor's result
        "\ty := &Command{}\n"
        "\t_ = y.Name()\n"                                      # 9: &T{}
        "\tfor _, child := range p.Commands() {\n"
        "\t\t_ = child.Name()\n"                               # 11: range over a result
        "\t}\n"
        "\t_ = p.Root().Name()\n"                               # 13: a method's result
        "\t_ = new(Command).Name()\n"                           # 14: new(T)
        "\tfile, _ := os.Open(\"x\")\n"
        "\t_ = file.Name()\n"                                   # 16: *os.File: not ours
        "\tvar s interface{} = v\n"
        "\tswitch t := s.(type) {\n"
        "\tcase *Command:\n"
        "\t\t_ = t.Name()\n"                                   # 20: a one-type case
        "\t}\n"
        "}\n")})
    assert _uses(codemap, "cmd/command.go::Command.Name") == {
        ("cmd/use.go", line, "resolved") for line in (3, 5, 7, 9, 11, 13, 14, 20)}


def test_fields_and_aliased_imports_lead_to_the_field_type_s_methods(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"cmd/flags.go": (
        "package cmd\n"
        "func (c *Command) mark() {\n"
        "\t_ = c.flags.Set(\"a\", \"b\")\n"                  # 2: field flags *flag.FlagSet
        "\t_ = c.Flags().Lookup(\"a\").Value.Set(\"b\")\n"  # 3: through Value (interface)
        "\tfor _, f := range c.Flags().Flags() {\n"
        "\t\t_ = f.Value.Type()\n"                           # 5
        "\t}\n"
        "}\n")})
    assert _uses(codemap, "flags/flags.go::FlagSet.Set") == {("cmd/flags.go", 2, "resolved")}
    assert _uses(codemap, "flags/flags.go::Value.Set") == {("cmd/flags.go", 3, "resolved")}
    assert _uses(codemap, "flags/flags.go::Value.Type") == {("cmd/flags.go", 5, "resolved")}
    # an implementation of Value: the call through the interface may run it
    assert _uses(codemap, "flags/values.go::boolValue.Set") == {("cmd/flags.go", 3, "name")}
    # a type with a Set that does not implement Value (no Type): never
    assert _uses(codemap, "flags/values.go::notAValue.Set") == set()


def test_interface_methods_reach_calls_on_their_implementations_as_name(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"flags/use.go": (
        "package flags\n"
        "func use(b *boolValue, n notAValue) {\n"
        "\t_ = b.Set(\"x\")\n"                               # 2
        "\t_ = n.Set(\"x\")\n"                               # 3
        "}\n")})
    assert _uses(codemap, "flags/values.go::boolValue.Set") == {("flags/use.go", 2, "resolved")}
    assert _uses(codemap, "flags/flags.go::Value.Set") == {("flags/use.go", 2, "name")}
    assert _uses(codemap, "flags/values.go::notAValue.Set") == {("flags/use.go", 3, "resolved")}
    assert _uses(codemap, "flags/flags.go::FlagSet.Set") == set()


def test_embedded_structs_promote_their_methods(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"cmd/embed.go": (
        "package cmd\n"
        "import (\n\t\"sync\"\n\tflag \"example.com/m/flags\"\n)\n"
        "type Wrapped struct {\n"
        "\t*Command\n"
        "\tflag.FlagSet\n"
        "\tsync.Mutex\n"
        "}\n"
        "func (w *Wrapped) Lock() {}\n"
        "func use(w Wrapped) {\n"
        "\t_ = w.Name()\n"                                   # 12: promoted from *Command
        "\t_ = w.Lookup(\"x\")\n"                            # 13: promoted from flag.FlagSet
        "\tw.Mutex.Unlock()\n"                               # 14
        "}\n")})
    assert _uses(codemap, "cmd/command.go::Command.Name") == {("cmd/embed.go", 12, "resolved")}
    assert _uses(codemap, "flags/flags.go::FlagSet.Lookup") == {("cmd/embed.go", 13, "resolved")}


def test_type_aliases_are_followed_to_the_aliased_type(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"app/app.go": (
        "package app\n"
        "import \"example.com/m/cmd\"\n"
        "type Cmd = cmd.Command\n"
        "func use(c *Cmd) string {\n"
        "\treturn c.Name()\n"                                # 4
        "}\n")})
    assert _uses(codemap, "cmd/command.go::Command.Name") == {("app/app.go", 4, "resolved")}


def test_a_qualified_type_of_another_package_is_not_a_use_of_ours(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"flags/golang.go": (
        "package flags\n"
        "import goflag \"flag\"\n"
        "func add(f *goflag.Flag, g *Flag) {}\n")})          # 2: only g is ours
    uses = _uses(codemap, "flags/flags.go::Flag")
    assert ("flags/golang.go", 2, "resolved") in uses
    refs, _total = codemap.find_references(symbol_id="flags/flags.go::Flag")
    assert [r.range.start.byte_col for r in refs if r.path == "flags/golang.go"] == [28]


def test_exported_functions_used_as_values_are_references(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {
        "cmd/complete.go": "package cmd\nfunc NoFiles() []string { return nil }\n",
        "cmd/setup.go": (
            "package cmd\n"
            "type spec struct{ Complete func() []string }\n"
            "func register(f func() []string) {}\n"
            "func setup() {\n"
            "\t_ = spec{Complete: NoFiles}\n"                # 4: a keyed element
            "\tregister(NoFiles)\n"                          # 5: an argument
            "\tall := []func() []string{NoFiles}\n"          # 6: an element
            "\t_ = all\n"
            "}\n")})
    assert _uses(codemap, "cmd/complete.go::NoFiles") == {
        ("cmd/setup.go", line, "resolved") for line in (4, 5, 6)}


def test_an_edited_parameter_type_updates_the_uses_in_the_body(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    text = ("package cmd\n"
            "import flag \"example.com/m/flags\"\n"
            "func use(x *Command) {\n"
            "\t_ = x.Flags()\n"
            "\t_ = x.Lookup(\"a\")\n"
            "}\n")
    codemap = _map(workspace, open_map, {"cmd/edit.go": text})
    codemap.open_document("cmd/edit.go", text)
    assert ("cmd/edit.go", 4, "resolved") not in _uses(
        codemap, "flags/flags.go::FlagSet.Lookup")
    codemap.apply_edit("cmd/edit.go", (2, 12), (2, 19), "flag.FlagSet")  # x *flag.FlagSet
    assert _uses(codemap, "flags/flags.go::FlagSet.Lookup") >= {
        ("cmd/edit.go", 4, "resolved")}
    assert ("cmd/edit.go", 3, "resolved") not in _uses(codemap, "cmd/command.go::Command.Flags")


def test_second_results_new_and_method_values(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {
        "cmd/pair.go": (
            "package cmd\n"
            "import flag \"example.com/m/flags\"\n"
            "func Pair() (*flag.FlagSet, *Command) { return nil, nil }\n"
            "func run(f func() *Command) {}\n"),
        "cmd/use2.go": (
            "package cmd\n"
            "func use() {\n"
            "\tfs, c := Pair()\n"
            "\t_ = c.Name()\n"                              # 3: the second result
            "\t_ = fs.Lookup(\"x\")\n"                    # 4: the first
            "\tr := new(Command)\n"                         # 5: new(T) names the type
            "\trun(r.Root)\n"                               # 6: a method value
            "\ta := NewCommand().Root().Root()\n"
            "\tb := a.Root().Root()\n"
            "\t_ = b.Name()\n"                              # 9: a long chain
            "}\n")})
    names = _uses(codemap, "cmd/command.go::Command.Name")
    assert names == {("cmd/use2.go", 3, "resolved"), ("cmd/use2.go", 9, "resolved")}
    assert _uses(codemap, "flags/flags.go::FlagSet.Lookup") == {("cmd/use2.go", 4, "resolved")}
    assert ("cmd/use2.go", 5, "resolved") in _uses(codemap, "cmd/command.go::Command")
    assert ("cmd/use2.go", 6, "resolved") in _uses(codemap, "cmd/command.go::Command.Root")


def test_a_type_named_like_a_method_is_no_use_of_the_method(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _map(workspace, open_map, {"cmd/matcher.go": (
        "package cmd\n"
        "type MatcherFunc func() bool\n"
        "func (c *Command) MatcherFunc(f MatcherFunc) *Command { return c }\n"  # 2
        "func use(c *Command, m MatcherFunc) { c.MatcherFunc(m) }\n")})        # 3
    assert _uses(codemap, "cmd/matcher.go::Command.MatcherFunc") == {
        ("cmd/matcher.go", 3, "resolved")}
