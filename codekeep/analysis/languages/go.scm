; Go tags query for the CodeKeep code map (conventions: languages/README.md).
; Function bodies and closures are local scopes (go.json), so consts, vars and
; types declared inside them are never indexed.

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name) @definition.function

; Methods hang off their receiver type, which is not their lexical parent.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @container.name
        (pointer_type (type_identifier) @container.name)
        (generic_type type: (type_identifier) @container.name)
        (pointer_type (generic_type type: (type_identifier) @container.name))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type)
    (slice_type) (array_type) (map_type) (channel_type) (function_type)
  ]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(method_elem
  name: (field_identifier) @name) @definition.method

(field_declaration
  name: (field_identifier) @name) @definition.field

(const_spec
  name: (identifier) @name) @definition.constant

(var_spec
  name: (identifier) @name) @definition.variable

; ----------------------------------------------------------------- references

(call_expression
  function: (identifier) @name) @reference.call

; `x.M()` / `pkg.F()`: the receiver decides what it can be a use of
; (codekeep/analysis/receivers.py; a Go receiver's declared type: go_scopes.py).
; A qualified type `pkg.T` below records `pkg` as its receiver the same way, so
; `goflag.Flag` (the standard library's) is not a use of the workspace's `Flag`.
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; An exported name used as a value: passed (`cobra.OnInitialize(InitConfig)`),
; stored (`ValidArgsFunction: NoFileCompletions`, `[]T{X}`), assigned or returned.
; Only exported names: Go locals are lower case, and telling a local from a package
; name would tie a use's facts to declarations far from it (the live-edit window
; re-extracts only what an edit touched).
([
  (argument_list (identifier) @name)
  (keyed_element value: (literal_element (identifier) @name))
  (literal_value (literal_element (identifier) @name))
  (expression_list (identifier) @name)
] @reference.value
 (#match? @name "^[A-Z]"))

; A method value or a field passed on: `r.Use(amw.Middleware)`, `f(c.flags)`. Only a
; receiver of known type makes these uses (receivers.py): field reads are everywhere.
([
  (argument_list (selector_expression
    operand: (_) @receiver field: (field_identifier) @name))
  (keyed_element value: (literal_element (selector_expression
    operand: (_) @receiver field: (field_identifier) @name)))
] @reference.value)

; `new(Route)`, `new(pkg.T)`: a type passed to a builtin
(argument_list [
  (type_identifier) @name
  (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
] @reference.type)

; Composite literals (`Store{...}`, `&pkg.Config{...}`) instantiate a type.
(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ]) @reference.new

; Embedding is Go's inheritance: an embedded interface is implemented, an
; embedded struct is a base.
(interface_type
  (type_elem . [
    (type_identifier) @name
    (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
  ] .)) @reference.implementation

(field_declaration
  !name
  type: [
    (type_identifier) @name
    (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
    (pointer_type (type_identifier) @name)
    (pointer_type (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  ]) @reference.class

; Every other place a named type is written. Predeclared types (int, string,
; error ...) are not references to anything in the project.
([
  (parameter_declaration type: (type_identifier) @name)
  (parameter_declaration type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (variadic_parameter_declaration type: (type_identifier) @name)
  (variadic_parameter_declaration type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (field_declaration name: (_) type: (type_identifier) @name)
  (field_declaration name: (_) type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (pointer_type (type_identifier) @name)
  (pointer_type (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (slice_type element: (type_identifier) @name)
  (slice_type element: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (array_type element: (type_identifier) @name)
  (array_type element: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (map_type key: (type_identifier) @name)
  (map_type key: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (map_type value: (type_identifier) @name)
  (map_type value: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (channel_type value: (type_identifier) @name)
  (channel_type value: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (generic_type type: (type_identifier) @name)
  (generic_type type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_arguments (type_elem (type_identifier) @name))
  (type_arguments (type_elem (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)))
  (type_spec type: (type_identifier) @name)
  (type_spec type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_alias type: (type_identifier) @name)
  (type_alias type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (const_spec type: (type_identifier) @name)
  (var_spec type: (type_identifier) @name)
  (var_spec type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (function_declaration result: (type_identifier) @name)
  (function_declaration result: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (method_declaration result: (type_identifier) @name)
  (method_declaration result: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (method_elem result: (type_identifier) @name)
  (method_elem result: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (func_literal result: (type_identifier) @name)
  (func_literal result: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (function_type result: (type_identifier) @name)
  (function_type result: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_assertion_expression type: (type_identifier) @name)
  (type_assertion_expression type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_conversion_expression type: (type_identifier) @name)
  (type_conversion_expression type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_case type: (type_identifier) @name)
  (type_case type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (type_constraint (type_identifier) @name)
  (type_constraint (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  (interface_type (type_elem (type_identifier) (type_identifier) @name))
] @reference.type
 (#not-match? @name "^(any|bool|byte|comparable|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr)$"))

; -------------------------------------------------------------------- imports

(import_spec
  name: (package_identifier)? @import.alias
  path: (interpreted_string_literal
    (interpreted_string_literal_content) @import.module)) @import
