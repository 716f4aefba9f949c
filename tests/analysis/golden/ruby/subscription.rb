# frozen_string_literal: true

require "json"
require "securerandom"
require_relative "billing/gateway"

module Billing
  DEFAULT_PLAN = "basic"
  TRIAL_DAYS = 14

  # Raised when a charge is refused by the gateway.
  class ChargeError < StandardError; end

  # Shared helpers for anything that has a price.
  module Priced
    def price_in_cents
      (price * 100).round
    end
  end

  # A customer's subscription to one plan.
  class Subscription < Record
    include Priced
    extend Forwardable

    STATES = %i[trial active cancelled].freeze

    attr_reader :plan, :state

    def_delegators :@customer, :email

    def self.start(customer, plan: DEFAULT_PLAN)
      subscription = new(customer, plan)
      subscription.save!
      subscription
    end

    def initialize(customer, plan)
      @customer = customer
      @plan = plan
      @state = :trial
      @id = SecureRandom.uuid
    end

    def price
      Plan.lookup(plan).monthly_price
    end

    def charge!(gateway = Gateway.new)
      result = gateway.charge(email, price_in_cents)
      raise ChargeError, result.message unless result.success?

      activate
      result
    end

    def cancel
      @state = :cancelled
      notify(:cancelled)
    end

    def to_json(*args)
      { id: @id, plan: plan, state: state }.to_json(*args)
    end

    class << self
      def trial_length
        TRIAL_DAYS
      end
    end

    private

    def activate
      @state = :active
      notify(:activated)
    end

    def notify(event)
      payload = JSON.generate(event: event, id: @id)
      Notifier.deliver(payload)
    end

    # Value object for a plan lookup result.
    class Plan < Struct.new(:name, :monthly_price)
      def self.lookup(name)
        new(name, name == DEFAULT_PLAN ? 9 : 29)
      end
    end
  end
end
