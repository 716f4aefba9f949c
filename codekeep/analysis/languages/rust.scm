; Rust tags query for the CodeKeep code map (conventions: languages/README.md).
; Blocks and closures are local scopes (rust.json): items, consts and lets
; inside function bodies are not indexed.

; ---------------------------------------------------------------- definitions

; Free functions; inside a trait, impl or mod the container decides the kind.
(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

; `impl X` / `impl Trait for X<T>`: X becomes the container of the impl's
; items; the impl block itself is not a symbol.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.impl

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(enum_variant
  name: (identifier) @name) @definition.constant

(field_declaration
  name: (field_identifier) @name) @definition.field

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

(associated_type
  name: (type_identifier) @name) @definition.type

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.variable

(mod_item
  name: (identifier) @name) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

; ----------------------------------------------------------------- references

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (scoped_identifier name: (identifier) @name)
    (generic_function function: (identifier) @name)
    (generic_function function: (field_expression field: (field_identifier) @name))
    (generic_function function: (scoped_identifier name: (identifier) @name))
  ]) @reference.call

(macro_invocation
  macro: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.macro

; Inside a macro's arguments (`println!("{}", helper(x))`, `vec![Foo::new()]`) the tree is
; only tokens: a name right before a parenthesised group is a call (`x.m(..)` and
; `T::f(..)` with their receiver, first, so the same name is not also a bare call), a
; capitalised name before `::` a type.
(token_tree
  (identifier) @receiver . "." . (identifier) @name . (token_tree)) @reference.call

(token_tree
  (identifier) @receiver . "::" . (identifier) @name . (token_tree)) @reference.call

(token_tree
  (identifier) @name . (token_tree)) @reference.call

((token_tree
  (identifier) @name . "::") @reference.type
 (#match? @name "^[A-Z]"))

; Struct literals construct a value of the named type.
(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type_with_turbofish type: (type_identifier) @name)
  ]) @reference.new

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

; `#[derive(Debug, Clone)]` implements those traits for the item.
((attribute
  (identifier) @_derive
  arguments: (token_tree
    (identifier) @name)) @reference.implementation
  (#eq? @_derive "derive"))

; Supertraits: `trait Task: Send + Named`.
(trait_item
  bounds: (trait_bounds [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ])) @reference.implementation

; Every other place a named type is written (`Self` names no new type).
([
  (_ type: (type_identifier) @name)
  (_ type: (scoped_type_identifier name: (type_identifier) @name))
  (_ return_type: (type_identifier) @name)
  (_ return_type: (scoped_type_identifier name: (type_identifier) @name))
  (_ element: (type_identifier) @name)
  (_ element: (scoped_type_identifier name: (type_identifier) @name))
  (type_arguments (type_identifier) @name)
  (type_arguments (scoped_type_identifier name: (type_identifier) @name))
  (tuple_type (type_identifier) @name)
  (tuple_type (scoped_type_identifier name: (type_identifier) @name))
  (dynamic_type trait: (type_identifier) @name)
  (dynamic_type trait: (scoped_type_identifier name: (type_identifier) @name))
  (abstract_type trait: (type_identifier) @name)
  (abstract_type trait: (scoped_type_identifier name: (type_identifier) @name))
  (type_parameter bounds: (trait_bounds (type_identifier) @name))
  (where_predicate bounds: (trait_bounds (type_identifier) @name))
  (where_predicate left: (type_identifier) @name)
] @reference.type
 (#not-eq? @name "Self"))

; Each name a `use` brings in (the last path segment, before any `as`).
(use_declaration
  argument: [
    (scoped_identifier name: (identifier) @name)
    (use_as_clause path: (scoped_identifier name: (identifier) @name))
    (scoped_use_list list: (use_list [
      (identifier) @name
      (scoped_identifier name: (identifier) @name)
      (use_as_clause path: [
        (identifier) @name
        (scoped_identifier name: (identifier) @name)
      ])
    ]))
  ]) @reference.import

; -------------------------------------------------------------------- imports

; `use a::b::C;`, `use a::b::C as D;`, `use a::{B, C as D};`, `use a::*;`
(use_declaration
  argument: (scoped_identifier
    path: (_) @import.module
    name: (identifier) @import.name)) @import

(use_declaration
  argument: (identifier) @import.module) @import

(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @import.module
      name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import

(use_declaration
  argument: (use_as_clause
    path: (identifier) @import.module
    alias: (identifier) @import.alias)) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list [
      (identifier) @import.name
      (self) @import.name
      (scoped_identifier name: (identifier) @import.name)
      (use_as_clause
        path: [
          (identifier) @import.name
          (scoped_identifier name: (identifier) @import.name)
        ]
        alias: (identifier) @import.alias)
    ]))) @import

(use_declaration
  argument: (use_wildcard
    (_) @import.module)) @import

(extern_crate_declaration
  name: (identifier) @import.module
  alias: (identifier)? @import.alias) @import
