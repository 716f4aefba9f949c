package com.example.shop.orders;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import static java.util.Objects.requireNonNull;
import com.example.shop.billing.*;

/** Places orders and keeps them until they are shipped. */
public class OrderService extends AbstractService implements OrderLookup, AutoCloseable {

    public static final int MAX_LINES = 50;
    private static final String DEFAULT_CURRENCY = "EUR";

    private final OrderRepository repository;
    private final List<Order> pending = new ArrayList<>();

    /** Life cycle of an order. */
    public enum Status {
        OPEN,
        PAID,
        SHIPPED;

        boolean isFinal() {
            return this == SHIPPED;
        }
    }

    /** One line of an order. */
    public static final class Line {
        final String sku;
        final int quantity;

        Line(String sku, int quantity) {
            this.sku = sku;
            this.quantity = quantity;
        }
    }

    public OrderService(OrderRepository repository) {
        this.repository = requireNonNull(repository);
    }

    @Override
    public Optional<Order> find(long id) {
        return repository.load(id);
    }

    public Order place(List<Line> lines) {
        if (lines.size() > MAX_LINES) {
            throw new IllegalArgumentException("too many lines");
        }
        Order order = new Order(DEFAULT_CURRENCY);
        for (Line line : lines) {
            order.add(line.sku, line.quantity);
        }
        pending.add(order);
        repository.save(order);
        return order;
    }

    public BigDecimal total(Order order) {
        BigDecimal sum = BigDecimal.ZERO;
        for (Line line : order.lines()) {
            sum = sum.add(priceOf(line));
        }
        return sum;
    }

    private BigDecimal priceOf(Line line) {
        Runnable audit = new Runnable() {
            @Override
            public void run() {
                log("priced " + line.sku);
            }
        };
        audit.run();
        return BigDecimal.valueOf(line.quantity);
    }

    @Override
    public void close() {
        pending.clear();
    }
}

/** Read access to orders by id. */
interface OrderLookup {
    int DEFAULT_PAGE = 20;

    Optional<Order> find(long id);
}

record Money(BigDecimal amount, String currency) {
    static Money zero(String currency) {
        return new Money(BigDecimal.ZERO, currency);
    }
}
