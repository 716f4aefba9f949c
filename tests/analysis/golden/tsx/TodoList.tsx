// A React component file: realistic TSX for the golden test.
import React, { useState } from "react";
import { TodoItem, type Todo } from "./TodoItem";
import styles from "./TodoList.module.css";

export interface TodoListProps {
  initial: Todo[];
  onChange?: (todos: Todo[]) => void;
}

const EMPTY_MESSAGE = "Nothing to do";

export function TodoList({ initial, onChange }: TodoListProps) {
  const [todos, setTodos] = useState<Todo[]>(initial);

  function toggle(id: number) {
    const next = todos.map((t) => (t.id === id ? { ...t, done: !t.done } : t));
    setTodos(next);
    onChange?.(next);
  }

  if (todos.length === 0) {
    return <p className={styles.empty}>{EMPTY_MESSAGE}</p>;
  }
  return (
    <ul>
      {todos.map((todo) => (
        <TodoItem key={todo.id} todo={todo} onToggle={toggle} />
      ))}
    </ul>
  );
}

export const Counter = ({ count }: { count: number }) => <Badge value={count} />;

class Badge extends React.Component<{ value: number }> {
  render() {
    return <span>{this.props.value}</span>;
  }
}

export default TodoList;
