; Ruby tags query for the CodeKeep code map (conventions: languages/README.md).
; Method bodies and lambdas are local scopes (ruby.json); blocks are not, since
; class-level DSL blocks (`class_methods do ... end`) define real methods.
; A method called as a bare word (`activate`, no receiver, arguments or
; parentheses) looks like a local variable in the syntax tree; standing alone as a
; statement (where a local read would do nothing) it is recorded as a call on self.

; ---------------------------------------------------------------- definitions

(class
  name: [
    (constant) @name
    (scope_resolution scope: (_) @container.name name: (constant) @name)
  ]) @definition.class

(module
  name: [
    (constant) @name
    (scope_resolution scope: (_) @container.name name: (constant) @name)
  ]) @definition.module

; `def name` is a function at the top level and a method in a class or module.
(method
  name: (_) @name) @definition.function

; `def self.name` (class methods).
(singleton_method
  name: (_) @name) @definition.method

(assignment
  left: (constant) @name) @definition.constant

; `attr_reader :plan, :state` declares attributes of the class.
((call
  !receiver
  method: (identifier) @_macro
  arguments: (argument_list
    (simple_symbol) @name)) @definition.field
  (#match? @_macro "^attr_(reader|writer|accessor)$"))

; ----------------------------------------------------------------- references

; `activate` alone on its line: a call on self (receivers.py labels it by the class)
[
  (body_statement (identifier) @name)
  (then (identifier) @name)
  (else (identifier) @name)
  (block_body (identifier) @name)
  (begin (identifier) @name)
  (if_modifier body: (identifier) @name)
  (unless_modifier body: (identifier) @name)
] @reference.call

; Method calls with a receiver, arguments or parentheses. `Foo.new` is an
; instantiation (below); `require` is an import.
((call
  receiver: (_)? @_receiver
  method: [(identifier) (constant)] @name) @reference.call
  (#not-match? @name "^(require|require_relative|load)$")
  (#not-match? @_receiver "^[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)*$"))

((call
  receiver: [
    (constant)
    (scope_resolution)
  ] @_receiver
  method: [(identifier) (constant)] @name) @reference.call
  (#not-eq? @name "new"))

((call
  receiver: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]
  method: (identifier) @_method) @reference.new
  (#eq? @_method "new"))

(superclass [
  (constant) @name
  (scope_resolution name: (constant) @name)
]) @reference.class

; Mixins: `include Comparable`, `extend Forwardable`, `prepend Audited`.
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ])) @reference.implementation
  (#match? @_mixin "^(include|extend|prepend)$"))

; Classes and modules used as values: `SecureRandom.uuid`, `JSON.parse`,
; `raise ChargeError`, `rescue Timeout::Error`. As arguments, SCREAMING_CASE
; constants are values, not types.
((call
  receiver: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]
  method: (identifier) @_method) @reference.type
  (#not-eq? @_method "new"))

((call
  method: (identifier) @_method
  arguments: (argument_list [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ])) @reference.type
  (#not-match? @_method "^(include|extend|prepend)$")
  (#match? @name "[a-z]"))

((exceptions [
  (constant) @name
  (scope_resolution name: (constant) @name)
]) @reference.type
  (#match? @name "[a-z]"))

; -------------------------------------------------------------------- imports

((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string (string_content) @import.module))) @import
  (#match? @_require "^(require|require_relative|load)$"))
