import React, { useState } from "react";

type Item = { name: string; count: number };

interface PanelProps {
  title: string;
  items: Item[];
  onPick?: (item: Item) => void;
}

export function Panel({ title, items, onPick }: PanelProps) {
  const [open, setOpen] = useState(false);
  const total = items.reduce((n, it) => n + it.count, 0);
  return (
    <section className="panel">
      <h2 onClick={() => setOpen(!open)}>{title} ({total})</h2>
      {open && (
        <ul>
          {items.map((it) => (
            <li key={it.name} onClick={() => onPick?.(it)}>
              {it.name}: <b>{it.count}</b>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function App() {
  const items: Item[] = [{ name: "apple", count: 3 }, { name: "pear", count: 10 }];
  return <Panel title="Stock" items={items} onPick={(it) => console.log(it.name)} />;
}
