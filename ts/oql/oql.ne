# OQL grammar (nearley + moo). Unambiguous by construction: precedence is encoded in the rule
# levels (OR < AND < NOT < predicate < + - < * / % < unary < postfix), and every optional
# clause has a fixed place. test/oql-parse.test.ts asserts exactly one parse per query.
@preprocessor typescript
@{%
import { lexer } from './lexer.js';
import * as B from './build.js';
%}
@lexer lexer

main -> query %semicolon:?                                      {% (d) => d[0] %}

# ---- queries --------------------------------------------------------------------------------
# ORDER BY / LIMIT after a compound query apply to the whole result (spec rule 1).
query -> compound orderBy:? limit:?                             {% B.query %}

compound -> compound %UNION %ALL:? intersectTerm                {% B.setop('union') %}
          | compound %EXCEPT intersectTerm                      {% B.setop('except') %}
          | intersectTerm                                       {% id %}

intersectTerm -> intersectTerm %INTERSECT branch                {% B.setop('intersect') %}
               | branch                                         {% id %}

branch -> select                                                {% id %}
        | %lparen query %rparen                                 {% B.parenthesized %}

select -> %SELECT %DISTINCT:? retainedSet:? %OBJECTS:? selectList retainedSet:? fromClause whereClause:? groupBy:? having:?
                                                                {% B.select %}

retainedSet -> %AS %RETAINED %SET                               {% (d) => d %}

# Lists are left-recursive rules whose postprocessors add an item in O(1) (B.first / B.next,
# B.dottedNext, B.dimsNext): nearley runs them at every item, and `(…):*` copies its array each
# time, which made a list of n items cost n² time and memory (see build.ts). The parse keeps a
# list as links (B.Links); parser.ts turns them into arrays once the parse is done.
selectList -> selectItems                                       {% id %}
selectItems -> selectItem                                       {% B.first %}
             | selectItems %comma selectItem                    {% B.next %}

selectItem -> %star                                             {% B.star %}
            | expr                                              {% B.item %}
            | expr %AS aliasName                                {% B.item %}

aliasName -> %ident                                             {% id %}
           | %string                                            {% id %}
           | softKeyword                                        {% id %}

# Keywords that may still name a column or field (`AS retained`, `ORDER BY retained`); the
# clause `AS RETAINED SET` stays unambiguous because nothing else may follow `AS RETAINED`.
softKeyword -> %RETAINED {% id %} | %SET {% id %}

fromClause -> %FROM %OBJECTS:? fromSource %ident:?              {% B.from %}

fromSource -> className                                         {% B.sourceClass %}
            | %INSTANCEOF className                             {% B.sourceInstanceOf %}
            | %INSTANCEOF %string                               {% B.sourceInstanceOfPattern %}
            | %string                                           {% B.sourceToken %}
            | %hex                                              {% B.sourceToken %}
            | %int                                              {% B.sourceToken %}
            | %lparen query %rparen                             {% B.sourceSubquery %}

className -> qualifiedName arrayDims                          {% B.className %}
qualifiedName -> %ident                                         {% B.dottedFirst %}
               | qualifiedName %dot anyName                     {% B.dottedNext %}
arrayDims -> null                                               {% () => null %}
           | arrayDims %lbracket %rbracket                      {% B.dimsNext %}

whereClause -> %WHERE expr                                      {% (d) => d[1] %}
groupBy -> %GROUP %BY exprItems                                 {% (d) => d[2] %}
having -> %HAVING expr                                          {% (d) => d[1] %}
orderBy -> %ORDER %BY orderItems                               {% (d) => d[2] %}
orderItems -> orderItem                                         {% B.first %}
            | orderItems %comma orderItem                       {% B.next %}
orderItem -> expr (%ASC | %DESC):?                              {% (d) => B.orderItem([d[0], d[1] ? d[1][0] : null]) %}
limit -> %LIMIT %int                                            {% B.limit %}

# ---- expressions ----------------------------------------------------------------------------
expr -> orExpr                                                  {% id %}

orExpr -> orExpr %OR andExpr                                    {% B.binary('or') %}
        | andExpr                                               {% id %}

andExpr -> andExpr %AND notExpr                                 {% B.binary('and') %}
         | notExpr                                              {% id %}

notExpr -> %NOT notExpr                                         {% B.not %}
         | predicate                                            {% id %}

predicate -> additive cmpOp additive                            {% B.compare %}
           | additive %NOT:? %LIKE %string                      {% B.like %}
           | additive %NOT:? %INSTANCEOF className              {% B.instanceOf %}
           | additive %NOT:? %INSTANCEOF %string                {% B.instanceOfPattern %}
           | additive %NOT:? %IN %lparen query %rparen          {% B.inQuery %}
           | additive %NOT:? %IN %lparen exprList %rparen       {% B.inList %}
           | additive %NOT:? %BETWEEN additive %AND additive    {% B.between %}
           | additive %IS %NOT:? %NULL                          {% B.isNull %}
           | %EXISTS %lparen query %rparen                      {% B.exists %}
           | additive                                           {% id %}

cmpOp -> %eq {% id %} | %ne {% id %} | %lt {% id %} | %le {% id %} | %gt {% id %} | %ge {% id %}

exprList -> exprItems                                           {% id %}
exprItems -> expr                                               {% B.first %}
           | exprItems %comma expr                              {% B.next %}

additive -> additive (%plus | %minus) multiplicative            {% (d) => B.arith([d[0], d[1][0], d[2]]) %}
          | multiplicative                                      {% id %}

multiplicative -> multiplicative (%star | %slash | %percent) unary
                                                                {% (d) => B.arith([d[0], d[1][0], d[2]]) %}
                | unary                                         {% id %}

unary -> %minus unary                                           {% B.unary %}
       | %plus unary                                            {% B.unary %}
       | postfix                                                {% id %}

postfix -> primary                                              {% id %}
         | postfix %dot anyName                                 {% B.field %}
         | postfix %dot %attr                                   {% B.attrOf %}
         | postfix %dot anyName %lparen args %rparen            {% B.method %}
         | postfix %lbracket additive %rbracket                 {% B.index %}
         | postfix %lbracket additive:? %colon additive:? %rbracket
                                                                {% B.slice %}

primary -> literal                                              {% id %}
         | %attr                                                {% B.attr %}
         | %ident                                               {% B.name %}
         | softKeyword                                          {% B.name %}
         | %ident %lparen args %rparen                          {% B.call %}
         | %ident %lparen %star %rparen                         {% B.callStar %}
         | %lparen expr %rparen                                 {% B.paren %}
         | caseExpr                                             {% id %}

args -> exprList:?                                              {% B.args %}

caseExpr -> %CASE whens (%ELSE expr):? %END                     {% B.caseExpr %}
whens -> when                                                   {% B.first %}
       | whens when                                             {% B.next %}
when -> %WHEN expr %THEN expr                                   {% (d) => ({ when: d[1], then: d[3] }) %}

literal -> %int {% B.literal %} | %float {% B.literal %} | %hex {% B.literal %} | %string {% B.literal %}
         | %TRUE {% B.literal %} | %FALSE {% B.literal %} | %NULL {% B.literal %}

# A field or class-name segment after `.`: keywords are plain names there (`buf.limit`).
anyName -> %ident {% id %}
  | %SELECT {% id %} | %DISTINCT {% id %} | %OBJECTS {% id %} | %AS {% id %} | %RETAINED {% id %}
  | %SET {% id %} | %FROM {% id %} | %INSTANCEOF {% id %} | %WHERE {% id %} | %GROUP {% id %}
  | %BY {% id %} | %HAVING {% id %} | %ORDER {% id %} | %ASC {% id %} | %DESC {% id %}
  | %LIMIT {% id %} | %UNION {% id %} | %INTERSECT {% id %} | %EXCEPT {% id %} | %ALL {% id %}
  | %AND {% id %} | %OR {% id %} | %NOT {% id %} | %LIKE {% id %} | %IN {% id %}
  | %BETWEEN {% id %} | %EXISTS {% id %} | %IS {% id %} | %CASE {% id %} | %WHEN {% id %}
  | %THEN {% id %} | %ELSE {% id %} | %END {% id %} | %TRUE {% id %} | %FALSE {% id %} | %NULL {% id %}
