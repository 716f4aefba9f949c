// A shopping cart module: realistic JavaScript for the golden test.
import { formatPrice, roundTo as round } from "./format.js";
import * as tax from "./tax";
const { EventEmitter } = require("events");

export const MAX_ITEMS = 100;
let instances = 0;

export class Cart extends EventEmitter {
  #items = [];
  discount = 0;

  constructor(owner) {
    super();
    this.owner = owner;
    instances += 1;
  }

  add(item, quantity = 1) {
    if (this.#items.length >= MAX_ITEMS) {
      throw new RangeError("cart is full");
    }
    this.#items.push({ ...item, quantity });
    this.emit("change", this.total());
    return this;
  }

  total() {
    const subtotal = this.#items.reduce((sum, i) => sum + i.price * i.quantity, 0);
    return round(tax.apply(subtotal) - this.discount, 2);
  }

  describe = () => formatPrice(this.total());
}

export function createCart(owner) {
  function log(message) {
    console.log(message);
  }
  log(`cart for ${owner}`);
  return new Cart(owner);
}

export const totalOf = (cart) => cart.total();

export default createCart;
