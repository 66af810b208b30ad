using System;
using System.Collections.Generic;
using System.Linq;

namespace Shop
{
    public record Item(string Name, int Count, decimal Price = 0m);

    public interface IStore
    {
        Item? Find(string name);
        void Add(Item item);
    }

    public class Inventory : IStore
    {
        private readonly Dictionary<string, Item> items = new();

        public Item? Find(string name) => items.TryGetValue(name, out var it) ? it : null;

        public void Add(Item item)
        {
            if (items.TryGetValue(item.Name, out var old))
            {
                items[item.Name] = old with { Count = old.Count + item.Count };
            }
            else
            {
                items[item.Name] = item;
            }
        }

        public decimal Total() => items.Values.Sum(it => it.Count * it.Price);

        public List<string> Restock(int min)
        {
            var low = new List<string>();
            foreach (var (name, item) in items.ToList())
            {
                if (item.Count < min)
                {
                    low.Add(name);
                    items[name] = item with { Count = Math.Max(min, item.Count * 2) };
                }
            }
            return low;
        }

        public static void Main(string[] args)
        {
            var inv = new Inventory();
            inv.Add(new Item("apple", 3, 0.5m));
            Console.WriteLine($"total {inv.Total()}");
        }
    }
}
