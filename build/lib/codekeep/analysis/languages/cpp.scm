; C++ tags query for the CodeKeep code map (conventions: languages/README.md).
; Function bodies and lambdas are local scopes (cpp.json). Free-function
; prototypes are declarations, not definitions; member functions declared in a
; class body are indexed, and so are their out-of-class definitions
; `Cls::name`, whose container comes from the qualifier (@container.name,
; relative to the enclosing namespace). Macros, struct/union/enum tags,
; enumerators, C-style typedefs and includes: _c_family.scm.

; ---------------------------------------------------------------- definitions

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
  ]) @definition.function

; Out-of-class definitions `Cls::name`, `Box<T>::name`, `ns::Cls::~Cls`: the
; innermost qualifier is the container (an outer namespace comes from the
; enclosing `namespace` block, or is dropped when written in the qualifier).
(function_definition
  declarator: [
    (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name))
      (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)))
    ])
    (pointer_declarator declarator: (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name))
      (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)))
    ]))
    (reference_declarator (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name))
      (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @container.name (template_type name: (type_identifier) @container.name)] name: [(identifier) (destructor_name) (operator_name)] @name)))
    ]))
  ]) @definition.function

; Member functions declared in a class body: `void put(...);`, `Cls(...);`
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  ]) @definition.function

(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name) (destructor_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name) (destructor_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name) (destructor_name)] @name))
    ]) @definition.function)

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

(class_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
  ]
  body: (field_declaration_list)) @definition.class

; Template specialisations: `struct hash<Key> {...}`.
(struct_specifier
  name: (template_type name: (type_identifier) @name)
  body: (field_declaration_list)) @definition.struct

; Typedefs of classes and C++ types (the C forms are in _c_family.scm).
(type_definition
  type: (class_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (class_specifier name: (_) body: (_))
  declarator: (type_identifier) @name @definition.type)

(type_definition
  type: [(qualified_identifier) (template_type) (class_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

(concept_definition
  name: (identifier) @name) @definition.type

; Class constants: `static constexpr int kMax = 5;`, `static const int kMin = 1;`.
; (For one node and name the earliest pattern wins, so these precede fields.)
((field_declaration
  (type_qualifier) @_qualifier
  declarator: (field_identifier) @name) @definition.constant
  (#eq? @_qualifier "constexpr"))

((field_declaration
  (storage_class_specifier) @_storage
  (type_qualifier) @_qualifier
  declarator: (field_identifier) @name) @definition.constant
  (#eq? @_storage "static")
  (#eq? @_qualifier "const"))

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
  ]) @definition.field

; Namespace- and file-scope variables; `const`/`constexpr` ones are constants (the
; earliest pattern wins). `extern` declarations are not definitions.
((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier) @_qualifier
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (reference_declarator (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.constant
  (#not-eq? @_storage "extern")
  (#match? @_qualifier "^(const|constexpr|constinit)$"))

((declaration
  (storage_class_specifier)* @_storage
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (reference_declarator (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.variable
  (#not-eq? @_storage "extern"))

; ----------------------------------------------------------------- references

(call_expression
  function: [
    (identifier) @name
    (field_expression field: [(field_identifier) (template_method name: (field_identifier))] @name)
    (template_function name: (identifier) @name)
    (qualified_identifier name: [
      (identifier) @name
      (template_function name: (identifier) @name)
      (qualified_identifier name: [
        (identifier) @name
        (template_function name: (identifier) @name)
      ])
    ])
  ]) @reference.call

(field_expression
  field: (template_method name: (field_identifier) @name)) @reference.call

; `new Cls(...)` and brace construction `Cls{...}` instantiate a class.
(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.new

(compound_literal_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.new

(base_class_clause
  [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.class

; Every other written type: declarations, parameters, returns, fields, casts,
; template arguments, aliases.
(declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(field_declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(parameter_declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(optional_parameter_declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(variadic_parameter_declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(function_definition
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(type_descriptor
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(type_definition
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(for_range_loop
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

(template_instantiation
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])
  ]) @reference.type

; The last name of a deeper qualified type, wherever it is written:
; `a::b::C`, `std::list<Entry>::iterator`.
(qualified_identifier
  name: (qualified_identifier
    name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])) @reference.type

; `std::list<Entry>::iterator` also uses `list`.
(qualified_identifier
  scope: (template_type name: (type_identifier) @name)) @reference.type

; `class Widget *w`: a class tag used without a body (struct, union and enum
; tags are in _c_family.scm).
(class_specifier
  !body
  name: (type_identifier) @name) @reference.type
